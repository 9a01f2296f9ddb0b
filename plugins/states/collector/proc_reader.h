// What /proc/self/task/TID says of a thread, and its CPU-time clock.
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

// Each parses one file's text (terminated).
bool parse_schedstat(const char* text, SchedStat* out);
bool parse_state_letter(const char* text, char* state);
bool parse_syscall(const char* text, Whereabouts* out);

// Each reads one file from a descriptor (at offset 0) and parses it.
bool read_schedstat(int fd, SchedStat* out);
bool read_state_letter(int fd, char* state);
bool read_syscall(int fd, Whereabouts* out);

// The thread's CPU time from its CPU-time clock (one system call, no file):
// the time schedstat counts, plus the current slice of a thread on a CPU.
// Unchanged between two readings means the thread has not run between
// them. False when the thread is gone (it ended without thread_end).
bool thread_cpu_clock_ns(uint32_t tid, uint64_t* ns);

// The calling thread's context switches so far, voluntary and involuntary
// (getrusage RUSAGE_THREAD: no file). On a CPU, it has arrived on one that
// many times plus one: schedstat's third field then.
bool own_switches(uint64_t* switches);

// This process's id, asked of the kernel once (getpid is a system call);
// a forked child forgets it.
int self_pid();
void forget_self_pid();

}  // namespace lumen::states
