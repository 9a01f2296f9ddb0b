// Signals the collector's plugins use (SIGPROF for clock profiling) stay
// usable by the target: its handlers for them are chained behind the
// plugin's, its sigaction/signal calls see and change only its own
// disposition, and its masks cannot block them.
#pragma once

#include <lumen/collector_plugin.h>
#include <signal.h>

#include <cstdint>

namespace lumen::collector {

// Not signal-safe. See lumen_runtime::claim_signal.
int claim_signal(int signal, lumen_signal_handler handler);

// Not signal-safe. See lumen_runtime::observe_signal.
int observe_signal(int signal, lumen_signal_handler observer);

// [signal-safe] Whether `signal` is claimed by a plugin.
bool signal_claimed(int signal);

// The target's sigaction for a claimed signal: records `act` as the
// target's disposition and returns the previous one in `old`.
int target_sigaction(int signal, const struct sigaction* act, struct sigaction* old);

// Removes claimed signals from a set the target is about to block.
void unblockable(sigset_t* set);

// [signal-safe] The claimed signals the calling thread's program code
// blocked (bit s-1 for signal s), which the kernel's mask does not hold; a
// new thread inherits its creator's, as it inherits the mask.
uint64_t claimed_signals_blocked_by_target();
void set_claimed_signals_blocked_by_target(uint64_t bits);

}  // namespace lumen::collector
