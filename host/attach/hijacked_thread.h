// One thread of another process, stopped under ptrace, made to call
// functions of its process and then put back exactly as it was: its
// registers, its extended (FPU/SSE/AVX) state, its signal mask (every
// signal but SIGSEGV is blocked during a call), and a system call it was
// interrupted in, which the kernel restarts when it resumes (a sleep is
// not cut short). The calls run on the thread's own stack, below its red
// zone. A called function must not sleep with nanosleep or clock_nanosleep
// (each resets the restart block the kernel resumes an interrupted sleep
// from).
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lumen::attach {

class HijackedThread {
 public:
  // Seizes and stops `tid` of process `pid`; throws with the reason (no
  // permission, another tracer, gone).
  HijackedThread(pid_t pid, pid_t tid);
  // The same for a thread `interrupt` seized and asked to stop already:
  // many threads are asked first, then each stop awaited.
  struct Interrupted {};
  HijackedThread(pid_t pid, pid_t tid, Interrupted);
  // Seizes `tid` and asks it to stop; false when it cannot be.
  static bool interrupt(pid_t tid);
  ~HijackedThread();  // restores the thread and lets it go
  HijackedThread(const HijackedThread&) = delete;
  HijackedThread& operator=(const HijackedThread&) = delete;

  // Calls `function(arguments...)` (up to six integer arguments) on the
  // thread and returns its rax; throws if it does not return within
  // `limit` (the thread is then left stopped where it was, restored).
  // `if_slow`, when given, runs once if the call has not returned after
  // kPatience (to let go of threads held while it runs, in case the call
  // waits for one of them).
  uint64_t call(uint64_t function, const std::vector<uint64_t>& arguments, std::chrono::milliseconds limit,
                const std::function<void()>& if_slow = {});
  static constexpr std::chrono::milliseconds kPatience{100};
  // The same in two steps, so that calls on several threads run at once:
  // the call is started, and its return awaited later.
  void start_call(uint64_t function, const std::vector<uint64_t>& arguments);
  uint64_t finish_call(std::chrono::milliseconds limit, const std::function<void()>& if_slow = {});
  // Puts the thread's registers and mask back as they were stopped; it
  // stays stopped until let go. Done as soon as its calls are over, the
  // letting go of many threads together is quicker.
  void restore();

  // Copies `text` with its NUL below the thread's stack pointer for the
  // calls that follow; returns its address there.
  uint64_t push_string(const std::string& text);

  pid_t tid() const { return tid_; }
  uint64_t stopped_pc() const { return saved_.rip; }
  // It was stopped inside a system call (to be restarted when it resumes).
  bool stopped_in_system_call() const { return static_cast<long long>(saved_.orig_rax) >= 0; }
  long stopped_system_call() const { return static_cast<long>(saved_.orig_rax); }

 private:
  void await_interrupt();  // the stop, then the thread's state saved
  pid_t pid_;
  pid_t tid_;
  user_regs_struct saved_{};
  std::vector<unsigned char> saved_xstate_;
  uint64_t saved_mask_ = 0;  // the thread's signal mask
  uint64_t scratch_top_ = 0;  // strings are pushed below this
  bool restored_ = false;
};

}  // namespace lumen::attach
