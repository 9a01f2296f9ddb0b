#include "signal_chain.h"

#include <dlfcn.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <lumen/collector_support.h>

namespace lumen::collector {

namespace {

using Sigaction = int (*)(int, const struct sigaction*, struct sigaction*);

Sigaction real_sigaction() {
  static const auto real = lumen::next_function<Sigaction>("sigaction", "GLIBC_2.2.5");
  return real;
}

constexpr int kHandlersPerSignal = 4;

struct ClaimedSignal {
  std::atomic<lumen_signal_handler> observers[kHandlersPerSignal] = {};
  std::atomic<lumen_signal_handler> handlers[kHandlersPerSignal] = {};
  std::atomic<bool> installed{false};
  // The target's disposition. Written by the target's sigaction calls,
  // read by the dispatcher; a handler change racing a delivery may see the
  // old handler, as with the kernel's own sigaction.
  struct sigaction target {};
};

ClaimedSignal g_claimed[NSIG];

void pass_to_target(int signal, siginfo_t* info, void* ucontext) {
  const struct sigaction target = g_claimed[signal].target;
  if (target.sa_flags & SA_SIGINFO) {
    if (target.sa_sigaction != nullptr) target.sa_sigaction(signal, info, ucontext);
    return;
  }
  if (target.sa_handler == SIG_IGN) return;
  if (target.sa_handler == SIG_DFL) {
    // What the default action would have done (for SIGPROF: terminate).
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    real_sigaction()(signal, &defaults, nullptr);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    raise(signal);
    return;
  }
  target.sa_handler(signal);
}

void dispatch(int signal, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  bool consumed = false;
  for (const auto& slot : g_claimed[signal].observers)
    if (const lumen_signal_handler observer = slot.load(std::memory_order_acquire)) observer(signal, info, ucontext);
  for (int i = 0; i < kHandlersPerSignal && !consumed; ++i) {
    const lumen_signal_handler handler = g_claimed[signal].handlers[i].load(std::memory_order_acquire);
    consumed = handler != nullptr && handler(signal, info, ucontext) != 0;
  }
  errno = saved_errno;
  if (!consumed) pass_to_target(signal, info, ucontext);
}

}  // namespace

int claim_signal(int signal, lumen_signal_handler handler) {
  if (signal <= 0 || signal >= NSIG || real_sigaction() == nullptr) return -1;
  ClaimedSignal& claimed = g_claimed[signal];
  int slot = 0;
  for (lumen_signal_handler expected = nullptr; slot < kHandlersPerSignal; ++slot, expected = nullptr)
    if (claimed.handlers[slot].compare_exchange_strong(expected, handler)) break;
  if (slot == kHandlersPerSignal) return -1;
  if (claimed.installed.exchange(true)) return 0;
  struct sigaction action {}, previous {};
  action.sa_sigaction = dispatch;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (real_sigaction()(signal, &action, &previous) != 0) {
    claimed.handlers[slot].store(nullptr);
    claimed.installed.store(false);
    return -1;
  }
  // A handler the target installed before collection started is kept.
  g_claimed[signal].target = previous;
  return 0;
}

int observe_signal(int signal, lumen_signal_handler observer) {
  if (signal <= 0 || signal >= NSIG || observer == nullptr) return -1;
  for (auto& slot : g_claimed[signal].observers) {
    lumen_signal_handler expected = nullptr;
    if (slot.compare_exchange_strong(expected, observer)) return 0;
  }
  return -1;
}

bool signal_claimed(int signal) {
  return signal > 0 && signal < NSIG && g_claimed[signal].installed.load(std::memory_order_acquire);
}

int target_sigaction(int signal, const struct sigaction* act, struct sigaction* old) {
  if (!signal_claimed(signal)) return real_sigaction() ? real_sigaction()(signal, act, old) : -1;
  if (old != nullptr) *old = g_claimed[signal].target;
  if (act != nullptr) g_claimed[signal].target = *act;
  return 0;
}

void unblockable(sigset_t* set) {
  if (set == nullptr) return;
  for (int signal = 1; signal < NSIG; ++signal)
    if (signal_claimed(signal)) sigdelset(set, signal);
}

}  // namespace lumen::collector
