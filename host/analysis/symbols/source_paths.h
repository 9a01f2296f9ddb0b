// Where er_print looks for source files: -setpath LIST (colon separated;
// "$expts" stands for each experiment's directory, the default being
// "$expts:."), -addpath DIR, and -pathmap OLD NEW (a recorded path starting
// with OLD is looked for under NEW first). A relative recorded path (a Java
// class's "com/acme/App.java") is looked for under each directory with its
// directories, then by its file name alone.
//
// Debug information names any path it likes (a symlinked "s.c" may stand
// for /etc/shadow), so a file found is also placed against roots: the
// directories the experiment was recorded from and those the user gave
// (roots()). A file whose real path (symlinks resolved) is under none of
// them, and is not the very file the debug information names, is said to
// be outside; a reader that reads sources only from the roots given
// (only_under()) does not find it at all.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lumen::analysis {

// A source file found, and where it really is.
struct FoundSource {
  std::filesystem::path path;  // as found
  std::filesystem::path real;  // symlinks resolved
  bool outside = false;        // `real` is under none of the roots it was placed against, and is not the
                               // very file the debug information names (reached through a link)
};

class SourcePaths {
 public:
  void set_path(const std::string& list);
  void add_path(const std::string& dir);
  void add_pathmap(const std::string& from, const std::string& to);

  // From now on a file whose real path is under none of `roots` (symlinks
  // resolved on both sides; none: no file at all) is passed over as if it
  // were not there, and a file found is its real path, not the one named.
  void only_under(const std::vector<std::filesystem::path>& roots);

  // The readable file for a path recorded in debug information, or nullopt.
  std::optional<std::filesystem::path> resolve(const std::string& recorded,
                                               const std::vector<std::filesystem::path>& experiment_dirs) const;
  // resolve()'s file, placed against `roots` (from roots()).
  std::optional<FoundSource> locate(const std::string& recorded, const std::vector<std::filesystem::path>& experiment_dirs,
                                    const std::vector<std::filesystem::path>& roots) const;
  // The places resolve() tried, for an error message.
  std::vector<std::filesystem::path> candidates(const std::string& recorded,
                                                const std::vector<std::filesystem::path>& experiment_dirs) const;

  // The directories the experiment was recorded from and those the user
  // chose, symlinks resolved, each once: the experiment directories (their
  // archived sources), the directory of each load object as recorded
  // (`object_paths`; relative names and "/" left out), and every directory
  // given to -setpath ("$expts" being the experiments'), -addpath and
  // -pathmap NEW. The default "$expts:." counts the experiments' alone.
  std::vector<std::filesystem::path> roots(const std::vector<std::filesystem::path>& experiment_dirs,
                                           const std::vector<std::string>& object_paths) const;

 private:
  std::vector<std::string> search_{"$expts", "."};
  std::vector<std::pair<std::string, std::string>> maps_;
  std::vector<std::string> given_;  // directories the user gave
  std::optional<std::vector<std::filesystem::path>> only_under_;
};

// Whether `real` (symlinks resolved) is one of `roots` or lies below one.
bool is_under(const std::filesystem::path& real, const std::vector<std::filesystem::path>& roots);

// " (found outside the directories the experiment was recorded from: /a,
// /b; shown because er_print runs as you)", for a file heading.
std::string found_outside_notice(const std::vector<std::filesystem::path>& roots);

}  // namespace lumen::analysis
