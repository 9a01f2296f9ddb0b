#include "progress.h"

#include <unistd.h>

#include <cstdio>

#include "terminal_text.h"

namespace lumen::analysis {

Progress::Progress(std::string what)
    : what_(printable_text(what)), terminal_(isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  if (shown_) std::fprintf(stderr, "\r%*s\r", static_cast<int>(what_.size()) + 16, "");
}

void Progress::update(uint64_t done, uint64_t total) {
  if (!terminal_ || total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < std::chrono::seconds(1) || (shown_ && now - last_ < std::chrono::milliseconds(100))) return;
  last_ = now;
  shown_ = true;
  std::fprintf(stderr, "\r%s: %3d%%", what_.c_str(), static_cast<int>(done * 100 / total));
  std::fflush(stderr);
}

}  // namespace lumen::analysis
