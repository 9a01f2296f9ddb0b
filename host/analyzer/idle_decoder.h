// Decodes a session's events while the page's user reads a view: once a
// view was answered and no other was asked for a moment, the session's
// events are decoded into cells (Session::decode_events) under the
// server's session lock, so that the next change of selection or the
// timeline is summed from them rather than paid for when asked. A request
// that comes during the decoding waits for it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace lumen::analyzer {

class IdleDecoder {
 public:
  // `decode` runs with `session_lock` held, on a thread of its own.
  IdleDecoder(std::mutex& session_lock, std::function<void()> decode);
  ~IdleDecoder();
  IdleDecoder(const IdleDecoder&) = delete;
  IdleDecoder& operator=(const IdleDecoder&) = delete;

  // A view was answered: decode after the quiet that follows it.
  void view_answered();

  // How long no view is asked before decoding starts.
  static constexpr std::chrono::milliseconds kQuiet{250};

 private:
  void run();

  std::mutex& session_lock_;
  std::function<void()> decode_;
  std::mutex lock_;
  std::condition_variable changed_;
  uint64_t answered_ = 0;      // views answered
  uint64_t decoded_after_ = 0;  // answered_ when the last decoding began
  std::chrono::steady_clock::time_point last_answer_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace lumen::analyzer
