// Running the real commands (collect, er_print, targets) from tests.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace lumen::test {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;  // killed at the deadline
  std::string out;
  std::string err;
};

// How long a process may run before it is taken for hung.
inline constexpr int kProcessDeadlineSeconds = 90;

// Runs argv[0] (searched in PATH) in a process group of its own with extra
// environment variables and standard input; collects stdout and stderr.
// Past the deadline the whole group (the target collect started, its
// descendants) is killed and the test fails naming the command: a hang
// fails the test instead of holding CI until the test's own timeout.
ProcessResult run_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
                          const std::string& input = "", int deadline_seconds = kProcessDeadlineSeconds);

// A fresh directory removed at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::filesystem::path bin_dir();     // collect, er_print
std::filesystem::path target_dir();  // test targets

}  // namespace lumen::test
