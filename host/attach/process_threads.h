// The threads of another process, as /proc shows them, and which of them
// may be stopped to load the collector: one whose stop leaves no lock of
// the C library or the dynamic linker held.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <set>
#include <vector>

#include "hijacked_thread.h"

namespace lumen::attach {

struct CodeRange {
  uint64_t start, end;
};

// The executable mappings of `pid` whose path `chosen` accepts.
std::vector<CodeRange> code_of(pid_t pid, const std::function<bool(const std::string& path)>& chosen);
bool inside(const std::vector<CodeRange>& ranges, uint64_t pc);

// Whether the thread has ended (gone, or a zombie): it runs no code any more.
bool thread_ended(pid_t pid, pid_t tid);

// The process's thread ids, its main thread first.
std::vector<pid_t> process_threads(pid_t pid);

// The threads of `pid` that run (not blocked in a system call) in the
// program's own code, stopped and held: while the collector loads and
// starts, they would take the CPUs it waits for. One stopped inside a
// library (whose locks a load may need) or in a system call is let go at
// once. Letting go of the rest (destroying them) resumes them as they were.
using HeldThreads = std::vector<std::unique_ptr<HijackedThread>>;
HeldThreads hold_running_threads(pid_t pid);

// A thread of `pid` stopped where a call into the dynamic linker is safe:
// blocked in a system call other than a futex wait (a sleep, a read, a
// poll), then one in a futex wait, then one of `held` (taken from it),
// then one running whose stop finds it outside the C library and the
// dynamic linker. Throws when none is found. Threads in `passed_over` are
// not taken.
std::unique_ptr<HijackedThread> stop_thread_for_loading(pid_t pid, const std::set<pid_t>& passed_over = {},
                                                        HeldThreads* held = nullptr);

}  // namespace lumen::attach
