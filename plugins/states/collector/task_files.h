// A thread's files under /proc/self/task/TID, read through the runtime
// (lumen_runtime.read_task_file): it opens them on a thread with a
// descriptor table of its own, so a reading never takes a descriptor number
// from the program's range, not even for a moment.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstdint>

#include "proc_reader.h"

namespace lumen::states {

// Each reads and parses one file of thread `tid`; false when it cannot.
bool read_task_schedstat(const lumen_runtime& runtime, uint32_t tid, SchedStat* out);
bool read_task_state(const lumen_runtime& runtime, uint32_t tid, char* state);
bool read_task_syscall(const lumen_runtime& runtime, uint32_t tid, Whereabouts* out);

}  // namespace lumen::states
