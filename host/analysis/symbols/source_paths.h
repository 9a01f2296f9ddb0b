// Where er_print looks for source files: -setpath LIST (colon separated;
// "$expts" stands for each experiment's directory, the default being
// "$expts:."), -addpath DIR, and -pathmap OLD NEW (a recorded path starting
// with OLD is looked for under NEW first). A relative recorded path (a Java
// class's "com/acme/App.java") is looked for under each directory with its
// directories, then by its file name alone.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lumen::analysis {

class SourcePaths {
 public:
  void set_path(const std::string& list);
  void add_path(const std::string& dir);
  void add_pathmap(const std::string& from, const std::string& to);

  // The readable file for a path recorded in debug information, or nullopt.
  std::optional<std::filesystem::path> resolve(const std::string& recorded,
                                               const std::vector<std::filesystem::path>& experiment_dirs) const;
  // The places resolve() tried, for an error message.
  std::vector<std::filesystem::path> candidates(const std::string& recorded,
                                                const std::vector<std::filesystem::path>& experiment_dirs) const;

 private:
  std::vector<std::string> search_{"$expts", "."};
  std::vector<std::pair<std::string, std::string>> maps_;
};

}  // namespace lumen::analysis
