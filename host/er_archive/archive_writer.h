// Writing an experiment's archives/ (see host/experiment/archive_index.h
// for what a reader does with it): every load object that a recorded stack
// touched, with its path, build-id, size and time, and in copy mode the
// file itself, only while it is the file the runtime recorded mapped.
// collect calls this after the target ended (-A on|copy); er_archive any
// time later.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace lumen::archive {

struct ArchiveReport {
  std::filesystem::path experiment;
  size_t objects = 0;               // listed in the index
  size_t copied = 0;                // files copied now
  std::vector<std::string> missing; // touched objects no longer on disk
  std::vector<std::string> changed; // touched objects whose file changed since they were mapped
  std::vector<std::string> unreadable; // touched objects whose file could not be read or copied
};

// Archives `experiment` and, when `descendants`, every sub-experiment in it.
// Descendants refer to the founder's copies rather than copying a file
// again. Entries already in an index keep what they recorded (a later
// archiving compares the file with it); copies are added in copy mode.
// Throws std::runtime_error when the directory is not an experiment or the
// index cannot be written.
std::vector<ArchiveReport> write_archives(const std::filesystem::path& experiment, bool copy_files,
                                          bool descendants = true);

// What a recording tool (collect, er_kernel: `tool`) says of archiving
// `experiment` once its processes ended: write_archives in copy mode, each
// file that was removed, changed or unreadable named on `out`, and a
// failure reported rather than thrown (the experiment and the exit status
// stand).
void archive_after_recording(const std::filesystem::path& experiment, const std::string& tool, std::ostream& out);

}  // namespace lumen::archive
