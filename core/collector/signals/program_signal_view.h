// The program's own view of the signals the collector claimed (SIGPROF for
// clock profiling, -l and -y signals): which of them each thread's program
// code blocks, and which of those are held for it. The kernel's mask keeps
// a claimed signal deliverable for the collector; the program reads back
// and is served by the mask it set (signal_interposers.cpp, the chain's
// dispatch in signal_chain.cpp).
#pragma once

#include <signal.h>

#include <cstdint>

namespace lumen::collector {

// [signal-safe] Bit s-1 stands for signal s (1..64).
inline uint64_t signal_bit(int signal) { return signal >= 1 && signal <= 64 ? uint64_t{1} << (signal - 1) : 0; }

// [signal-safe] The claimed signals in `set`, as bits, and back.
uint64_t claimed_signals_in(const sigset_t* set);
sigset_t claimed_signal_set(uint64_t bits);

// [signal-safe] The claimed signals the calling thread's program code
// blocked, which the kernel's mask does not hold; a new thread inherits its
// creator's, as it inherits the mask.
uint64_t claimed_signals_blocked_by_target();
void set_claimed_signals_blocked_by_target(uint64_t bits);

// [signal-safe] Those the calling thread blocks in the kernel after all: one
// arrived for the program while it blocked it, and is pending for it until
// it unblocks it, waits for it, or another thread takes it.
uint64_t claimed_signals_held();
void set_claimed_signals_held(uint64_t bits);
void note_claimed_signal_held(int signal);

// [signal-safe] Held signals no longer pending (a sigwait, a signalfd or
// another thread took them) are deliverable again: the thread's samples go
// on.
void release_unpending_holds();

// A new thread and a forked child have nothing pending for themselves:
// the holds they inherited in the kernel's mask are released.
void release_inherited_holds();

}  // namespace lumen::collector
