// The OpenMP plugin's records, shared by its two halves: one declaration of
// each layout, checked by static_assert.
#pragma once

#include <lumen/record_format.h>

#include <cstdint>

namespace lumen::omp {

inline constexpr const char* kDataFile = "omptrace";

// Record kinds in "omptrace".
inline constexpr uint16_t kProcessRecord = 1;  // OmpProcess, once per process at start
inline constexpr uint16_t kRegionRecord = 2;   // OmpRegion, by the encountering thread when the region ends
inline constexpr uint16_t kTaskRecord = 3;     // OmpTask, by the thread that ran the task, when it ends
inline constexpr uint16_t kWaitRecord = 4;     // OmpWait, by the waiting thread, when the wait ends
inline constexpr uint16_t kProcessEndRecord = 5;  // OmpProcessEnd, at the end of collection
inline constexpr uint16_t kExplicitTaskRecord = 6; // OmpExplicitTask, by the thread that ran it, when it ends
inline constexpr uint16_t kStateRecord = 7;        // OmpState, at each clock-signal delivery under an OMPT runtime
inline constexpr uint16_t kRegionTaskRecord = 8;   // OmpRegionTask, a region and its encountering thread's task
inline constexpr uint16_t kShortRegionTaskRecord = 9;  // OmpShortRegionTask: an OmpRegionTask in 56 bytes
inline constexpr uint16_t kShortTaskRecord = 10;       // OmpShortTask: an OmpTask in 28 bytes

inline bool is_record_kind(uint16_t kind) { return kind >= kProcessRecord && kind <= kShortTaskRecord; }

// The kinds that hold a region (OmpRegion, alone or with its task).
inline bool is_region_record(uint16_t kind) {
  return kind == kRegionRecord || kind == kRegionTaskRecord || kind == kShortRegionTaskRecord;
}

// Which OpenMP runtime the process uses. Stable numbers: they are stored.
enum class Runtime : uint32_t { kUnknown = 0, kLibgomp = 1, kLibomp = 2 };

// OMP_WAIT_POLICY as the process saw it at start. Stable numbers.
enum class WaitPolicy : uint32_t { kUnset = 0, kActive = 1, kPassive = 2, kOther = 3 };

// What a thread waited for. Stable numbers: they are stored. Each has an
// artificial function of Oracle's (wait_function_name).
enum class WaitKind : uint16_t {
  kImplicitBarrier = 1,  // end of a parallel region or a worksharing construct
  kExplicitBarrier = 2,  // #pragma omp barrier
  kLock = 3,             // omp_set_lock, omp_set_nest_lock
  kCritical = 4,         // #pragma omp critical
  kOrdered = 5,          // #pragma omp ordered
  kAtomic = 6,           // an atomic the compiler could not do in hardware
  kTaskwait = 7,         // #pragma omp taskwait, the end of a taskgroup
  kIdle = 8,             // a worker between the regions it works for
  kReduction = 9,        // a reduction's combining (OMPT runtimes report it)
};

struct OmpProcess {
  uint32_t runtime;      // Runtime
  uint32_t wait_policy;  // WaitPolicy
  uint32_t max_threads;  // OMP_NUM_THREADS's first value, 0 when unset
  uint32_t reserved;
};
static_assert(sizeof(OmpProcess) == 16, "record layout");

// A parallel region: its encountering thread's call site (the stack of the
// call that started it), the compiler-generated body function, the team,
// and its time from the start call to its return.
struct OmpRegion {
  uint64_t region_id;         // unique in the process, from 1
  uint64_t parent_region_id;  // the region the encountering thread was in; 0: none
  uint64_t call_stack_id;     // LUMEN_NO_STACK when none was captured
  uint64_t body;              // address of the outlined body function
  uint64_t begin_ns;
  uint64_t end_ns;
  uint32_t thread_id;         // the encountering thread
  uint32_t team_size;         // threads that ran the region's implicit tasks
  uint32_t requested_threads; // the num_threads the call asked for, 0: the default
  uint32_t reserved;
};
static_assert(sizeof(OmpRegion) == 64, "record layout");

// One implicit task: a thread's run of a region's body.
struct OmpTask {
  uint64_t region_id;
  uint64_t begin_ns;
  uint64_t end_ns;
  uint32_t thread_id;
  uint32_t thread_num;  // omp_get_thread_num() in the region
};
static_assert(sizeof(OmpTask) == 32, "record layout");

// A region and its encountering thread's implicit task (thread_num 0, the
// region's thread) in one record, as the OMPT callbacks and libgomp's
// interposers write them when the task ended inside the region and within
// 4.29 s of its begin: 76 bytes with its word where a region and a task
// record take 104.
struct OmpRegionTask {
  OmpRegion region;
  uint32_t task_begin_offset_ns;  // the task's begin, after region.begin_ns
  uint32_t task_end_offset_ns;    // its end, after region.begin_ns
};
static_assert(sizeof(OmpRegionTask) == 72, "record layout");

// One call that waited (or could have): from entry to return.
struct OmpWait {
  uint64_t region_id;  // the innermost region the thread was in; 0: none
  uint64_t begin_ns;
  uint64_t end_ns;
  uint64_t stack_id;   // the waiting call's stack, the call itself the leaf
  uint64_t object;     // the lock's address; 0 where there is none
  uint32_t thread_id;
  uint16_t kind;       // WaitKind
  uint16_t reserved;
};
static_assert(sizeof(OmpWait) == 48, "record layout");

// One explicit task (#pragma omp task): where it was created and where,
// when, it ran.
struct OmpExplicitTask {
  uint64_t task_id;         // unique in the process, from 1 (its own sequence)
  uint64_t region_id;       // the innermost region of its creating thread; 0: none
  uint64_t create_stack_id; // the creating call's stack; LUMEN_NO_STACK when none was captured
  uint64_t body;            // address of the task's outlined body function
  uint64_t create_ns;
  uint64_t begin_ns;
  uint64_t end_ns;
  uint32_t creating_thread_id;
  uint32_t thread_id;       // the thread that ran it
};
static_assert(sizeof(OmpExplicitTask) == 64, "record layout");

// The thread's OpenMP state (ompt_state_t) as an OMPT runtime said it at
// one delivery of clock profiling's signal: read by an observer of the
// signal (ompt_get_state, safe in a signal handler) just before the clock
// plugin's handler takes that delivery's sample on the same thread, with
// the signal blocked until both are done. So the sample a state belongs to
// is the first one of its thread at or after `time_ns` (both read the same
// clock), and no other sample of the thread comes before the thread's next
// state record.
struct OmpState {
  uint64_t time_ns;
  uint64_t wait_id;  // the lock, critical section, ... waited for; 0: none
  uint32_t state;    // ompt_state_t (OpenMP 5.1's numbers)
  uint32_t thread_id;
};
static_assert(sizeof(OmpState) == 24, "record layout");

struct OmpProcessEnd {
  uint64_t end_ns;
};
static_assert(sizeof(OmpProcessEnd) == 8, "record layout");

// Oracle's artificial function for a kind of wait.
inline const char* wait_function_name(uint16_t kind) {
  switch (static_cast<WaitKind>(kind)) {
    case WaitKind::kImplicitBarrier: return "<OMP-implicit_barrier>";
    case WaitKind::kExplicitBarrier: return "<OMP-explicit_barrier>";
    case WaitKind::kLock: return "<OMP-lock_wait>";
    case WaitKind::kCritical: return "<OMP-critical_section_wait>";
    case WaitKind::kOrdered: return "<OMP-ordered_section_wait>";
    case WaitKind::kAtomic: return "<OMP-atomic_wait>";
    case WaitKind::kTaskwait: return "<OMP-taskwait>";
    case WaitKind::kIdle: return "<OMP-idle>";
    case WaitKind::kReduction: return "<OMP-reduction>";
  }
  return "<OMP-wait>";
}

inline const char* runtime_name(uint32_t runtime) {
  switch (static_cast<Runtime>(runtime)) {
    case Runtime::kLibgomp: return "GCC libgomp";
    case Runtime::kLibomp: return "LLVM libomp";
    case Runtime::kUnknown: break;
  }
  return "unknown";
}

inline const char* wait_policy_name(uint32_t policy) {
  switch (static_cast<WaitPolicy>(policy)) {
    case WaitPolicy::kActive: return "active";
    case WaitPolicy::kPassive: return "passive";
    case WaitPolicy::kOther: return "other";
    case WaitPolicy::kUnset: break;
  }
  return "unset (the runtime's default)";
}

}  // namespace lumen::omp
