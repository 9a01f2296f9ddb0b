// A thread's files under /proc/self/task/TID, opened (relative to a
// descriptor of /proc/self/task: a short lookup) when a reading needs them
// and closed after it. Held for the thread's life they would be three
// descriptors a thread: more than the runtime's protected range holds, and
// a program with many threads would meet them in its own range.
#pragma once

#include <cstdint>

#include "proc_reader.h"

namespace lumen::states {

enum TaskFile { kSchedstatFile = 0, kStatFile = 1, kSyscallFile = 2, kTaskFileCount = 3 };

// Open only during a reading (a forked child closes what the parent's
// reading had open).
struct TaskFiles {
  int fd[kTaskFileCount] = {-1, -1, -1};
};

// Each reads one file of thread `tid` (`task_dir`: /proc/self/task, or -1).
bool read_task_schedstat(TaskFiles& files, int task_dir, uint32_t tid, SchedStat* out);
bool read_task_state(TaskFiles& files, int task_dir, uint32_t tid, char* state);
bool read_task_syscall(TaskFiles& files, int task_dir, uint32_t tid, Whereabouts* out);

// After a reading (or in a forked child): closes them.
void close_task_files(TaskFiles& files);

}  // namespace lumen::states
