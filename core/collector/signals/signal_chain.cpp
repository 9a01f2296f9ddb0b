#include "signals/kernel_sigaction.h"
#include "signals/program_signal_view.h"
#include "signals/signal_chain.h"
#include "threads/program_thread_state.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

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
  // The disposition as the kernel had it when claimed, put back exactly
  // by a detach unless the program changed its own since.
  KernelSigaction before_claim{};
  bool target_changed = false;
};

ClaimedSignal g_claimed[NSIG];

// A redelivered signal (hold_for_target) carries this in its value, which
// a kill or tgkill leaves unused (a sigqueue's own value is never
// replaced): the collector's handlers took it at its first delivery.
constexpr uintptr_t kRedelivered = 0x6c756d656e2d7271u;

bool redelivered(const siginfo_t* info) {
  return info != nullptr && reinterpret_cast<uintptr_t>(info->si_value.sival_ptr) == kRedelivered;
}

// The program blocks the signal on this thread: it stays pending for the
// program, as without collect, until the program unblocks it, waits for it
// (sigwait, signalfd) or another thread that does not block it takes it.
// Blocked in the kernel from the handler's return on (the thread's own
// samples wait meanwhile; signal_interposers.cpp releases the hold), and
// sent again with what the sender said. A process-directed signal is sent
// to the process again, so any thread may take it; the kernel lets only
// the main thread send one that names another sender (kill's), so on
// another thread it goes out as sigqueue's (SI_QUEUE, same sender).
void send_again_for_target(int signal, const siginfo_t* info) {
  siginfo_t again = *info;
  if (again.si_code == SI_USER || again.si_code == SI_TKILL || again.si_code > 0)
    again.si_value.sival_ptr = reinterpret_cast<void*>(kRedelivered);
  const pid_t pid = static_cast<pid_t>(syscall(SYS_getpid));
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (again.si_code == SI_TKILL) {
    syscall(SYS_rt_tgsigqueueinfo, pid, tid, signal, &again);
    return;
  }
  if (tid != pid && (again.si_code == SI_USER || again.si_code > 0)) again.si_code = SI_QUEUE;
  syscall(SYS_rt_sigqueueinfo, pid, signal, &again);
}

void hold_for_target(int signal, siginfo_t* info, ucontext_t* context) {
  sigaddset(&context->uc_sigmask, signal);
  note_claimed_signal_held(signal);
  send_again_for_target(signal, info);
}

// Runs the program's handler as the kernel would have: with its sa_mask
// and (unless SA_NODEFER) the signal itself blocked, the claimed ones in
// the program's view only (the kernel keeps them deliverable for the
// collector); SA_RESETHAND restores the default first.
void run_target_handler(int signal, const struct sigaction& target, siginfo_t* info, void* ucontext) {
  if (target.sa_flags & SA_RESETHAND) {
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    g_claimed[signal].target = defaults;
  }
  sigset_t blocked = target.sa_mask;
  if (!(target.sa_flags & SA_NODEFER)) sigaddset(&blocked, signal);
  const uint64_t claimed_before = claimed_signals_blocked_by_target();
  const uint64_t claimed = claimed_signals_in(&blocked);
  for (int s = 1; s <= 64 && s < NSIG; ++s)
    if (claimed & signal_bit(s)) sigdelset(&blocked, s);
  sigset_t kernel_before;
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &blocked, &kernel_before, _NSIG / 8);
  set_claimed_signals_blocked_by_target(claimed_before | claimed);
  current_thread().program_handlers_run.fetch_add(1, std::memory_order_relaxed);
  if (target.sa_flags & SA_SIGINFO) {
    if (target.sa_sigaction != nullptr) target.sa_sigaction(signal, info, ucontext);
  } else {
    target.sa_handler(signal);
  }
  // A handler that leaves through longjmp keeps its mask, as it would
  // without collect (siglongjmp restores the program's own through the
  // interposed sigprocmask).
  set_claimed_signals_blocked_by_target(claimed_before);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &kernel_before, nullptr, _NSIG / 8);
}

void pass_to_target(int signal, siginfo_t* info, void* ucontext) {
  if ((claimed_signals_blocked_by_target() & signal_bit(signal)) != 0 && ucontext != nullptr) {
    hold_for_target(signal, info, static_cast<ucontext_t*>(ucontext));
    return;
  }
  const struct sigaction target = g_claimed[signal].target;
  if (!(target.sa_flags & SA_SIGINFO) && target.sa_handler == SIG_IGN) return;
  if (!(target.sa_flags & SA_SIGINFO) && target.sa_handler == SIG_DFL) {
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
  run_target_handler(signal, target, info, ucontext);
}

void dispatch(int signal, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  bool consumed = false;
  ThreadState& thread = current_thread();
  ++thread.in_dispatch;
  if (!redelivered(info)) consumed = collector_takes(signal, info, ucontext);
  --thread.in_dispatch;
  errno = saved_errno;
  if (!consumed) pass_to_target(signal, info, ucontext);
}

}  // namespace

bool collector_takes(int signal, siginfo_t* info, void* ucontext) {
  if (signal <= 0 || signal >= NSIG || redelivered(info)) return false;
  bool consumed = false;
  for (const auto& slot : g_claimed[signal].observers)
    if (const lumen_signal_handler observer = slot.load(std::memory_order_acquire)) observer(signal, info, ucontext);
  for (int i = 0; i < kHandlersPerSignal && !consumed; ++i) {
    const lumen_signal_handler handler = g_claimed[signal].handlers[i].load(std::memory_order_acquire);
    consumed = handler != nullptr && handler(signal, info, ucontext) != 0;
  }
  return consumed;
}

void hold_again_for_target(int signal, const siginfo_t* info) { send_again_for_target(signal, info); }

bool target_wants(int signal) {
  if (signal <= 0 || signal >= NSIG) return false;
  if ((claimed_signals_blocked_by_target() & signal_bit(signal)) != 0) return true;
  const struct sigaction target = g_claimed[signal].target;
  if (target.sa_flags & SA_SIGINFO) return target.sa_sigaction != nullptr;
  return target.sa_handler != SIG_DFL && target.sa_handler != SIG_IGN;
}

int claim_signal(int signal, lumen_signal_handler handler) {
  if (signal <= 0 || signal >= NSIG || real_sigaction() == nullptr) return -1;
  ClaimedSignal& claimed = g_claimed[signal];
  int slot = 0;
  for (lumen_signal_handler expected = nullptr; slot < kHandlersPerSignal; ++slot, expected = nullptr)
    if (claimed.handlers[slot].compare_exchange_strong(expected, handler)) break;
  if (slot == kHandlersPerSignal) return -1;
  if (claimed.installed.exchange(true)) return 0;
  read_kernel_sigaction(signal, claimed.before_claim);
  claimed.target_changed = false;
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

void release_claimed_signals() {
  for (int signal = 1; signal < NSIG; ++signal) {
    ClaimedSignal& claimed = g_claimed[signal];
    if (!claimed.installed.exchange(false)) continue;
    // A program that set its own handler since (no sigaction is
    // interposed after an attach) keeps it.
    struct sigaction now {};
    if (real_sigaction()(signal, nullptr, &now) != 0 || !(now.sa_flags & SA_SIGINFO) || now.sa_sigaction != dispatch)
      continue;
    if (claimed.target_changed)
      real_sigaction()(signal, &claimed.target, nullptr);
    else
      write_kernel_sigaction(signal, claimed.before_claim);
    for (auto& handler : claimed.handlers) handler.store(nullptr);
    for (auto& observer : claimed.observers) observer.store(nullptr);
  }
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
  if (act != nullptr) {
    g_claimed[signal].target = *act;
    g_claimed[signal].target_changed = true;
  }
  return 0;
}

void unblockable(sigset_t* set) {
  if (set == nullptr) return;
  for (int signal = 1; signal < NSIG; ++signal)
    if (signal_claimed(signal)) sigdelset(set, signal);
}

}  // namespace lumen::collector
