// The target's signal-disposition and mask calls, routed through the signal
// chain so that it neither replaces nor blocks a signal a plugin claimed,
// while reading back exactly the mask it set.
// glibc's signal() does not call the exported sigaction, so it is wrapped
// too; the waits for signals (sigwait and its kin, sigsuspend) take the
// program's view of its mask (program_signal_view.h), and leave the
// collector's own signals out. Versions as glibc exports them (objdump -T
// libc.so.6).
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include <lumen/collector_support.h>

#include "signals/program_signal_view.h"
#include "signals/kernel_sigaction.h"
#include "signals/signal_chain.h"
#include "stacks/stack_capture.h"
#include "threads/program_thread_state.h"

using namespace lumen::collector;

namespace {

using Sigprocmask = int (*)(int, const sigset_t*, sigset_t*);
using PthreadSigmask = int (*)(int, const sigset_t*, sigset_t*);

using Sigtimedwait = int (*)(const sigset_t*, siginfo_t*, const struct timespec*);

Sigtimedwait real_sigtimedwait() {
  static const auto real = lumen::next_function<Sigtimedwait>("sigtimedwait", "GLIBC_2.2.5");
  return real;
}

uint64_t blocked_after(int how, uint64_t before, uint64_t named) {
  if (how == SIG_BLOCK) return before | named;
  if (how == SIG_UNBLOCK) return before & ~named;
  if (how == SIG_SETMASK) return named;
  return before;
}

// The target's mask change, with the claimed signals kept deliverable
// (held ones stay blocked while the program blocks them) and remembered
// as blocked for what the target reads back. The runtime's own unwinder
// blocks them on purpose (see unwinding_now) and is left alone, as is all
// the runtime's own code (its threads block every signal; libunwind's lock
// blocks and restores the mask in the off-CPU sampler's unwinding too).
int masked(Sigprocmask real, int how, const sigset_t* set, sigset_t* old) {
  if (unwinding_now() || current_thread().interposer_depth > 0) return real(how, set, old);
  release_unpending_holds();
  const uint64_t before = claimed_signals_blocked_by_target();
  // Read before the call: `old` may be `set` (sigprocmask(how, &s, &s)).
  const uint64_t after = set != nullptr ? blocked_after(how, before, claimed_signals_in(set)) : before;
  const uint64_t held = claimed_signals_held() & after;
  sigset_t copy;
  const sigset_t* passed = set;
  if (set != nullptr && how != SIG_UNBLOCK) {
    copy = *set;
    unblockable(&copy);
    for (int signal = 1; signal <= 64 && signal < NSIG; ++signal)
      if (held & signal_bit(signal)) sigaddset(&copy, signal);
    passed = &copy;
  }
  // The program's view changes before the kernel's: a held signal the
  // call unblocks is delivered inside it, to the program's handler.
  const uint64_t held_before = claimed_signals_held();
  set_claimed_signals_blocked_by_target(after);
  set_claimed_signals_held(held);
  const int rc = real(how, passed, old);
  if (rc != 0) {
    set_claimed_signals_blocked_by_target(before);
    set_claimed_signals_held(held_before);
    return rc;
  }
  if (old != nullptr)
    for (int signal = 1; signal < NSIG && signal <= 64; ++signal) {
      if (!signal_claimed(signal)) continue;
      if (before & signal_bit(signal)) sigaddset(old, signal);
      else sigdelset(old, signal);
    }
  return 0;
}

// What is pending for the program: a held signal's pending instance may be
// the collector's own (its timer's, which the hold kept waiting): taken
// out and handed to the collector, the program's put back.
int pending_for_program(sigset_t* set) {
  for (int signal = 1; signal <= 64 && signal < NSIG && claimed_signals_held() != 0; ++signal) {
    if (!(claimed_signals_held() & signal_bit(signal))) continue;
    const sigset_t only = claimed_signal_set(signal_bit(signal));
    const timespec now{0, 0};
    siginfo_t info;
    for (int taken = 0; taken < 4; ++taken) {
      if (real_sigtimedwait()(&only, &info, &now) != signal) break;
      if (!collector_takes(signal, &info, nullptr)) {
        hold_again_for_target(signal, &info);
        break;
      }
    }
  }
  release_unpending_holds();
  return static_cast<int>(syscall(SYS_rt_sigpending, set, _NSIG / 8));
}

// Whether a handler outside the signal chain could have ended a wait on the
// calling thread for `set`: a signal outside it, not claimed, unblocked
// here, whose disposition is a handler.
bool unchained_handler_could_interrupt(const sigset_t* set) {
  const lumen::ErrnoKept errno_kept;
  uint64_t blocked = 0;
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, nullptr, &blocked, sizeof blocked);
  for (int signal = 1; signal <= 64 && signal < NSIG; ++signal) {
    // The C library's own (SIGCANCEL, SIGSETXID: the first two real-time
    // signals) have its handlers in every process, never the program's.
    if (signal == SIGKILL || signal == SIGSTOP || signal == 32 || signal == 33 || sigismember(set, signal) == 1 ||
        signal_claimed(signal) || (blocked & signal_bit(signal)) != 0)
      continue;
    KernelSigaction action;
    if (!read_kernel_sigaction(signal, action)) continue;
    if (action.handler != reinterpret_cast<uintptr_t>(SIG_DFL) && action.handler != reinterpret_cast<uintptr_t>(SIG_IGN))
      return true;
  }
  return false;
}

double monotonic_seconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// The program waits for signals: one the collector takes as its own (its
// timer's, while the thread waited with it unblocked) is not the
// program's, and the wait goes on for what is left of its timeout. So does
// a wait the kernel ended with EINTR when no handler of the program's can
// have run: a process-directed signal the wait was woken for and another
// thread took (the collector keeps claimed signals deliverable there, to
// hold them for the program), or a sample of the collector's.
int wait_for_program_signal(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
  siginfo_t local;
  siginfo_t* out = info != nullptr ? info : &local;
  const double deadline =
      timeout != nullptr ? monotonic_seconds() + static_cast<double>(timeout->tv_sec) + timeout->tv_nsec / 1e9 : 0;
  timespec left{};
  const timespec* wait_for = timeout;
  for (;;) {
    ThreadState& thread = current_thread();
    const uint32_t program_handlers_before = thread.program_handlers_run.load(std::memory_order_relaxed);
    const int signal = real_sigtimedwait()(set, out, wait_for);
    const bool collectors_interruption =
        signal < 0 && errno == EINTR &&
        thread.program_handlers_run.load(std::memory_order_relaxed) == program_handlers_before &&
        !unchained_handler_could_interrupt(set);
    if (!collectors_interruption) {
      if (signal <= 0 || !signal_claimed(signal)) return signal;
      const int saved_errno = errno;
      release_unpending_holds();
      const bool collectors = collector_takes(signal, out, nullptr);
      errno = saved_errno;
      if (!collectors) return signal;
    }
    if (timeout != nullptr) {
      const double remaining = deadline - monotonic_seconds();
      if (remaining <= 0) {
        errno = EAGAIN;
        return -1;
      }
      left.tv_sec = static_cast<time_t>(remaining);
      left.tv_nsec = static_cast<long>((remaining - static_cast<double>(left.tv_sec)) * 1e9);
      wait_for = &left;
    }
  }
}

}  // namespace

extern "C" {

LUMEN_EXPORT int lumen_sigaction(int signal, const struct sigaction* act,
                                                           struct sigaction* old) {
  return target_sigaction(signal, act, old);
}

LUMEN_EXPORT sighandler_t lumen_signal(int signal, sighandler_t handler) {
  // BSD semantics, as glibc's signal(): restart, no reset, no self-blocking.
  struct sigaction action {}, old {};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, signal);
  if (target_sigaction(signal, &action, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

LUMEN_EXPORT int lumen_sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  static const auto real = lumen::next_function<Sigprocmask>("sigprocmask", "GLIBC_2.2.5");
  return masked(real, how, set, old);
}

LUMEN_EXPORT int lumen_pthread_sigmask_2_32(int how, const sigset_t* set, sigset_t* old) {
  static const auto real = lumen::next_function<PthreadSigmask>("pthread_sigmask", "GLIBC_2.32");
  return masked(real, how, set, old);
}

LUMEN_EXPORT int lumen_pthread_sigmask_2_2_5(int how, const sigset_t* set, sigset_t* old) {
  static const auto real = lumen::next_function<PthreadSigmask>("pthread_sigmask", "GLIBC_2.2.5");
  return masked(real, how, set, old);
}

LUMEN_EXPORT int lumen_sigpending(sigset_t* set) {
  if (set == nullptr) {
    errno = EFAULT;
    return -1;
  }
  return pending_for_program(set);
}

LUMEN_EXPORT int lumen_sigtimedwait(const sigset_t* set, siginfo_t* info, const struct timespec* timeout) {
  return wait_for_program_signal(set, info, timeout);
}

LUMEN_EXPORT int lumen_sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  return wait_for_program_signal(set, info, nullptr);
}

LUMEN_EXPORT int lumen_sigwait(const sigset_t* set, int* signal) {
  int got;
  do got = wait_for_program_signal(set, nullptr, nullptr);
  while (got < 0 && errno == EINTR);
  if (got < 0) return errno;
  *signal = got;
  return 0;
}

// While suspended, the program's mask is the one it passed: its claimed
// signals as it says (held ones stay blocked if it blocks them), the
// others deliverable.
LUMEN_EXPORT int lumen_sigsuspend(const sigset_t* mask) {
  using Sigsuspend = int (*)(const sigset_t*);
  static const auto real = lumen::next_function<Sigsuspend>("sigsuspend", "GLIBC_2.2.5");
  if (mask == nullptr) return real(mask);
  release_unpending_holds();
  const uint64_t before = claimed_signals_blocked_by_target();
  const uint64_t during = claimed_signals_in(mask);
  sigset_t passed = *mask;
  unblockable(&passed);
  for (int signal = 1; signal <= 64 && signal < NSIG; ++signal)
    if (claimed_signals_held() & during & signal_bit(signal)) sigaddset(&passed, signal);
  set_claimed_signals_blocked_by_target(during);
  const int rc = real(&passed);
  const int saved_errno = errno;
  set_claimed_signals_blocked_by_target(before);
  errno = saved_errno;
  return rc;
}

}  // extern "C"


__asm__(".symver lumen_sigaction, sigaction@@GLIBC_2.2.5");
__asm__(".symver lumen_signal, signal@@GLIBC_2.2.5");
__asm__(".symver lumen_sigprocmask, sigprocmask@@GLIBC_2.2.5");
__asm__(".symver lumen_pthread_sigmask_2_32, pthread_sigmask@@GLIBC_2.32");
__asm__(".symver lumen_pthread_sigmask_2_2_5, pthread_sigmask@GLIBC_2.2.5");
__asm__(".symver lumen_sigtimedwait, sigtimedwait@@GLIBC_2.2.5");
__asm__(".symver lumen_sigwaitinfo, sigwaitinfo@@GLIBC_2.2.5");
__asm__(".symver lumen_sigwait, sigwait@@GLIBC_2.2.5");
__asm__(".symver lumen_sigsuspend, sigsuspend@@GLIBC_2.2.5");
__asm__(".symver lumen_sigpending, sigpending@@GLIBC_2.2.5");
