// Progress of a long analysis on a terminal: shown on stderr once the work
// has taken a second, and only when stderr is a terminal (never in a pipe,
// a file or a test's captured output); the line is cleared at the end.
#pragma once

#include <chrono>
#include <string>

namespace lumen::analysis {

class Progress {
 public:
  explicit Progress(std::string what);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // `done` of `total` units of work are done.
  void update(uint64_t done, uint64_t total);

 private:
  std::string what_;
  bool terminal_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace lumen::analysis
