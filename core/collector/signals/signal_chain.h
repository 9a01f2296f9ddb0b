// Signals the collector's plugins use (SIGPROF for clock profiling) stay
// usable by the target: its handlers for them are chained behind the
// plugin's, its sigaction/signal calls see and change only its own
// disposition, and its masks cannot block them.
#pragma once

#include <lumen/collector_plugin.h>
#include <signal.h>

#include <cstdint>

namespace lumen::collector {

// Not signal-safe. See lumen_signal_service::claim_signal.
int claim_signal(int signal, lumen_signal_handler handler);

// Not signal-safe. See lumen_signal_service::observe_signal.
int observe_signal(int signal, lumen_signal_handler observer);

// Not signal-safe. Gives every claimed signal back to the program: its own
// disposition, as recorded (a detach: no handler of the collector's runs
// after it).
void release_claimed_signals();

// [signal-safe] Whether `signal` is claimed by a plugin.
bool signal_claimed(int signal);

// [signal-safe] Hands `signal` to the collector's observers and handlers;
// true when one of them took it as its own (the program's never sees it).
// A signal the collector redelivered for the program is never taken.
bool collector_takes(int signal, siginfo_t* info, void* ucontext);

// [signal-safe] Sends a held signal taken out of the pending set again,
// as it came, for the program (the calling thread blocks it).
void hold_again_for_target(int signal, const siginfo_t* info);

// [signal-safe] Whether the program takes `signal` itself: a handler of
// its own, or the calling thread blocks it (to wait for it).
bool target_wants(int signal);

// The target's sigaction for a claimed signal: records `act` as the
// target's disposition and returns the previous one in `old`.
int target_sigaction(int signal, const struct sigaction* act, struct sigaction* old);

// Removes claimed signals from a set the target is about to block.
void unblockable(sigset_t* set);

}  // namespace lumen::collector
