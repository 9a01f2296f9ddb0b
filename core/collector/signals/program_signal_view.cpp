#include "signals/program_signal_view.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "signals/signal_chain.h"

namespace lumen::collector {

namespace {

__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_claimed_blocked;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_held;

}  // namespace

uint64_t claimed_signals_in(const sigset_t* set) {
  uint64_t bits = 0;
  for (int signal = 1; signal < NSIG && signal <= 64; ++signal)
    if (signal_claimed(signal) && sigismember(set, signal) == 1) bits |= signal_bit(signal);
  return bits;
}

sigset_t claimed_signal_set(uint64_t bits) {
  sigset_t set;
  sigemptyset(&set);
  for (int signal = 1; signal <= 64 && signal < NSIG; ++signal)
    if (bits & signal_bit(signal)) sigaddset(&set, signal);
  return set;
}

uint64_t claimed_signals_blocked_by_target() { return t_claimed_blocked; }
void set_claimed_signals_blocked_by_target(uint64_t bits) { t_claimed_blocked = bits; }
uint64_t claimed_signals_held() { return t_held; }
void set_claimed_signals_held(uint64_t bits) { t_held = bits; }
void note_claimed_signal_held(int signal) { t_held |= signal_bit(signal); }

void release_unpending_holds() {
  if (t_held == 0) return;
  sigset_t pending;
  if (syscall(SYS_rt_sigpending, &pending, _NSIG / 8) != 0) return;
  const uint64_t released = t_held & ~claimed_signals_in(&pending);
  if (released == 0) return;
  const sigset_t set = claimed_signal_set(released);
  syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, nullptr, _NSIG / 8);
  t_held &= ~released;
}

void release_inherited_holds() {
  sigset_t claimed;
  sigemptyset(&claimed);
  for (int signal = 1; signal < NSIG; ++signal)
    if (signal_claimed(signal)) sigaddset(&claimed, signal);
  syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &claimed, nullptr, _NSIG / 8);
  t_held = 0;
}

}  // namespace lumen::collector
