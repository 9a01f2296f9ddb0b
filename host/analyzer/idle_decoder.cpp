#include "idle_decoder.h"

namespace lumen::analyzer {

IdleDecoder::IdleDecoder(std::mutex& session_lock, std::function<void()> decode)
    : session_lock_(session_lock), decode_(std::move(decode)), thread_([this] { run(); }) {}

IdleDecoder::~IdleDecoder() {
  {
    const std::lock_guard<std::mutex> lock(lock_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void IdleDecoder::view_answered() {
  {
    const std::lock_guard<std::mutex> lock(lock_);
    ++answered_;
    last_answer_ = std::chrono::steady_clock::now();
  }
  changed_.notify_all();
}

void IdleDecoder::run() {
  std::unique_lock<std::mutex> lock(lock_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || answered_ != decoded_after_; });
    // Quiet since the latest answer, which a later one moves on.
    while (!stopping_ && std::chrono::steady_clock::now() < last_answer_ + kQuiet)
      changed_.wait_until(lock, last_answer_ + kQuiet);
    if (stopping_) return;
    decoded_after_ = answered_;
    lock.unlock();
    {
      const std::lock_guard<std::mutex> session(session_lock_);
      try {
        decode_();  // nothing when the cells of these settings are made already
      } catch (const std::exception&) {
        // A view that needs them says what went wrong, when it is asked.
      }
    }
    lock.lock();
  }
}

}  // namespace lumen::analyzer
