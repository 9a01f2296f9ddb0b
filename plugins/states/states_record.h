// The states plugin's record, shared by its two halves.
#pragma once

#include <cstdint>

namespace lumen::states {

inline constexpr const char* kDataFile = "states";
inline constexpr uint16_t kIntervalRecord = 1;
inline constexpr uint16_t kThreadRecord = 2;

// What a thread was blocked in, as the sampler saw it.
enum class Blocked : uint8_t {
  kNone = 0,        // not blocked at all in the interval
  kSleep = 1,       // a system call other than futex: sleeps, I/O, poll
  kLock = 2,        // futex: mutexes, condition variables, semaphores, joins
  kDataFault = 3,   // uninterruptible outside a system call, its PC's page resident
  kTextFault = 4,   // uninterruptible outside a system call, its PC's page not resident
  kStopped = 5,     // stopped by job control or a tracer
};

// One sampling interval of one thread, ending at time_ns: its time blocked
// (in `blocked`, charged to blocked_stack), waiting for a CPU (schedstat's
// run delay, charged to wait_stack) and on a CPU (charged to cpu_stack, for
// the `total` metric only). Their sum is the interval's wall time but for
// what the kernel had not yet counted at its end (a wait still going on),
// which a later interval of the thread carries. A stack may be
// LUMEN_NO_STACK: analysis then names an artificial function. Each stack
// counts at the time it describes the thread (the blocked stack when it
// was seen, the wait's stack when it was sampled): 0 is time_ns. The two
// times were added in format 1.1; a record of 1.0 ends before them.
struct StateInterval {
  uint64_t time_ns;
  uint64_t cpu_ns;
  uint64_t blocked_ns;
  uint64_t wait_ns;
  uint64_t blocked_stack;
  uint64_t wait_stack;
  uint64_t cpu_stack;
  uint32_t thread_id;
  Blocked blocked;
  uint8_t reserved[3];
  uint64_t blocked_stack_ns;
  uint64_t wait_stack_ns;
};
static_assert(sizeof(StateInterval) == 80, "record layout");
inline constexpr uint16_t kIntervalBytes10 = 64;  // a StateInterval of format 1.0

// One thread's own figures over the time it was watched (from its
// thread_begin, or the start of collection, to its end), from its
// schedstat at both ends, written with its last interval: what the kernel
// counted, which -statistics compares the states with.
struct ThreadFigures {
  uint64_t time_ns;   // its end
  uint64_t begin_ns;  // its beginning
  uint64_t cpu_ns;    // time on a CPU in between
  uint64_t delay_ns;  // run delay in between
  uint32_t thread_id;
  uint32_t reserved;
};
static_assert(sizeof(ThreadFigures) == 40, "record layout");

}  // namespace lumen::states
