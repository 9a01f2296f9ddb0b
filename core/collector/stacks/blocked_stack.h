// The user stack of another thread of this process that is blocked (in a
// system call, a page fault), unwound from its registers as
// /proc/self/task/TID/syscall gives them, without a signal: the thread is
// never interrupted, so its sleep is never cut short.
#pragma once

#include <cstdint>

namespace lumen::collector {

// Not signal-safe; from one collector thread at a time (a second caller
// meanwhile gets LUMEN_NO_STACK). Unwinds from `pc`/`sp` (and `bp` where
// known, else 0) with libunwind over an address space whose every memory
// read goes through process_vm_readv on this process: a stack the thread
// changes or unmaps meanwhile gives a wrong or short stack, never a fault.
// The caller discards the result when the thread ran meanwhile. Returns the
// stack's id in the experiment, or LUMEN_NO_STACK; `stack_end` receives the
// end of the stack memory the unwinding read, [sp, stack_end) (at most
// 64 KiB; 0 when more or none): the same registers over the same bytes
// there unwind to the same stack.
uint64_t capture_blocked_stack(uint64_t pc, uint64_t sp, uint64_t bp, uint64_t* stack_end);

// Not signal-safe. Sets up the unwinder's address space, on a thread of
// the program's as collection starts: its allocation on a collector thread
// would give that thread a malloc arena of its own (64 MiB of the program's
// address space).
void blocked_stack_prepare();

}  // namespace lumen::collector
