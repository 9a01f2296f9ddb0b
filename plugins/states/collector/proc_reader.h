// What /proc/self/task/TID says of a thread, read through descriptors kept
// open for it (pread at offset 0 reads the file anew).
#pragma once

#include <cstdint>

namespace lumen::states {

// schedstat: time on a CPU, time runnable but waiting for one (run delay),
// and how many times it was put on a CPU.
struct SchedStat {
  uint64_t cpu_ns = 0;
  uint64_t delay_ns = 0;
  uint64_t switches = 0;
};

// stat's state letter and syscall's registers: a thread blocked in a system
// call has `call` >= 0; outside one (a page fault) -1; `running` when the
// kernel says it is on a CPU (then nothing else is known).
struct Whereabouts {
  char state = '?';
  bool running = false;
  long call = -1;
  uint64_t sp = 0;
  uint64_t pc = 0;
};

bool read_schedstat(int fd, SchedStat* out);
bool read_state_letter(int fd, char* state);
bool read_syscall(int fd, Whereabouts* out);

// Opens /proc/self/task/TID/NAME read-only; -1 when it cannot.
int open_task_file(uint32_t tid, const char* name);

}  // namespace lumen::states
