// A target run in the background for tests that act on a process that
// already runs (collect -P): in a process group of its own, killed with its
// group if the test ends before it does.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace lumen::test {

class Background {
 public:
  // `output`: where its standard output goes ("": the test's). Its
  // standard input is a pipe the test holds open.
  Background(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
             const std::string& output = "");
  ~Background();
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  pid_t pid() const { return pid_; }
  // Writes to its standard input; closing it ends a program reading it.
  bool give_input(const std::string& text);
  void close_input();
  // Its exit status (128 + N for signal N), waiting at most `limit`; -1
  // when it did not end.
  int wait_exit(std::chrono::seconds limit);

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  bool reaped_ = false;
};

// "collect: attached to process N (...) in 42 ms": the seconds collect
// reports after `what` (0 when it reports none).
double reported_seconds(const std::string& text, const std::string& what);

// Waits for `file` to exist, at most `limit`.
bool wait_for_file(const std::filesystem::path& file, std::chrono::seconds limit);

}  // namespace lumen::test
