// The target's signal-disposition and mask calls, routed through the signal
// chain so that it neither replaces nor blocks a signal a plugin claimed,
// while reading back exactly the mask it set.
// glibc's signal() does not call the exported sigaction, so it is wrapped
// too. Versions as glibc exports them (objdump -T libc.so.6).
#include <dlfcn.h>
#include <signal.h>

#include <cstdint>

#include <lumen/collector_support.h>

#include "signal_chain.h"
#include "stack_capture.h"

using namespace lumen::collector;

namespace {

using Sigprocmask = int (*)(int, const sigset_t*, sigset_t*);
using PthreadSigmask = int (*)(int, const sigset_t*, sigset_t*);

// The claimed signals the calling thread's program code asked to block, one
// bit per signal (bit s-1): the kernel's mask keeps them deliverable, and
// the program reads back the mask it set.
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_claimed_blocked;

uint64_t claimed_in(const sigset_t* set) {
  uint64_t bits = 0;
  for (int signal = 1; signal < NSIG && signal <= 64; ++signal)
    if (signal_claimed(signal) && sigismember(set, signal) == 1) bits |= uint64_t{1} << (signal - 1);
  return bits;
}

// The target's mask change, with the claimed signals kept deliverable and
// remembered as blocked for what the target reads back. The runtime's own
// unwinder blocks them on purpose (see unwinding_now) and is left alone.
int masked(Sigprocmask real, int how, const sigset_t* set, sigset_t* old) {
  if (unwinding_now()) return real(how, set, old);
  sigset_t copy;
  const sigset_t* passed = set;
  if (set != nullptr && how != SIG_UNBLOCK) {
    copy = *set;
    unblockable(&copy);
    passed = &copy;
  }
  const uint64_t blocked_before = t_claimed_blocked;
  // Read before the call: `old` may be `set` (sigprocmask(how, &s, &s)).
  const uint64_t named = set != nullptr ? claimed_in(set) : 0;
  const int rc = real(how, passed, old);
  if (rc != 0) return rc;
  if (old != nullptr)
    for (int signal = 1; signal < NSIG && signal <= 64; ++signal)
      if (blocked_before >> (signal - 1) & 1u) sigaddset(old, signal);
  if (set != nullptr) {
    if (how == SIG_BLOCK) t_claimed_blocked = blocked_before | named;
    else if (how == SIG_UNBLOCK) t_claimed_blocked = blocked_before & ~named;
    else if (how == SIG_SETMASK) t_claimed_blocked = named;
  }
  return 0;
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

}  // extern "C"

namespace lumen::collector {
uint64_t claimed_signals_blocked_by_target() { return t_claimed_blocked; }
void set_claimed_signals_blocked_by_target(uint64_t bits) { t_claimed_blocked = bits; }
}  // namespace lumen::collector

__asm__(".symver lumen_sigaction, sigaction@@GLIBC_2.2.5");
__asm__(".symver lumen_signal, signal@@GLIBC_2.2.5");
__asm__(".symver lumen_sigprocmask, sigprocmask@@GLIBC_2.2.5");
__asm__(".symver lumen_pthread_sigmask_2_32, pthread_sigmask@@GLIBC_2.32");
__asm__(".symver lumen_pthread_sigmask_2_2_5, pthread_sigmask@GLIBC_2.2.5");
