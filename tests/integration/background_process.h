// A target run in the background for tests that act on a process that
// already runs (collect -P): in a process group of its own, killed with its
// group if the test ends before it does.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
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

// When an attached experiment's log says the collector detached
// (CLOCK_MONOTONIC ns, as std::chrono::steady_clock reads it); 0 when it
// says nothing of it.
uint64_t logged_detach_ns(const std::filesystem::path& experiment);
// Seconds from that detach to `then` (0 when the log names none): what
// collect spent finishing the experiment after it, a target's time that
// truth read after collect's end holds and the experiment does not.
double seconds_after_detach(const std::filesystem::path& experiment, std::chrono::steady_clock::time_point then);

// Waits for `file` to exist, at most `limit`.
bool wait_for_file(const std::filesystem::path& file, std::chrono::seconds limit);

}  // namespace lumen::test
