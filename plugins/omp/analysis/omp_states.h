// What an OMPT runtime's thread state (ompt_state_t, recorded at each clock
// sample: OmpState) says of that sample, the stretch of its thread's time
// each recorded state stands for, and which samples the state decides: the
// trace's waits decide the samples they cover, the state the others.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "omp_trace.h"

namespace lumen::omp {

// Work (user code or the runtime's useful work, serial or parallel, and
// states that name no OpenMP activity) and overhead are OpenMP Work; a
// wait of any kind and idle are OpenMP Wait.
enum class StateClass { kWork, kOverhead, kWait, kIdle };

struct StateMeaning {
  StateClass state_class;
  const char* function;  // Oracle's artificial function for it; NULL for plain work
};

// The OpenMP 5.1 specification's numbers.
StateMeaning state_meaning(uint32_t state);
const char* state_name(uint32_t state);

inline bool is_wait(StateClass c) { return c == StateClass::kWait || c == StateClass::kIdle; }

// The stretch of its thread's time one state record stands for: from the
// record to the thread's next one (or to the end of the trace). The clock
// sample taken in the same signal delivery as the record is the only
// sample of its thread in [begin_ns, end_ns): the observer that records the
// state runs just before the clock plugin's handler, with the signal
// blocked until both have run, and both read the same clock.
struct StateWindow {
  uint32_t thread_id;
  uint32_t state;
  uint64_t begin_ns;
  uint64_t end_ns;  // exclusive
};

// Every state record's window, by thread and time.
std::vector<StateWindow> state_windows(const OmpTrace& trace);

// The trace's waits (`recorded` and `implied`, closed intervals [begin,
// end] of their thread), per thread: which covers a time, and when the
// next begins.
class TraceWaits {
 public:
  TraceWaits(const std::vector<OmpWait>& recorded, const std::vector<OmpWait>& implied);
  // The wait covering `time_ns` on `thread` (of several, the one ending
  // last); nullptr when none does.
  const OmpWait* covering(uint32_t thread, uint64_t time_ns) const;
  // The begin of the thread's first wait beginning after `time_ns`;
  // UINT64_MAX when none does.
  uint64_t next_begin(uint32_t thread, uint64_t time_ns) const;

 private:
  struct Waits {
    std::vector<const OmpWait*> by_begin;
    std::vector<const OmpWait*> latest_ending;  // of by_begin[0..i]
  };
  std::unordered_map<uint32_t, Waits> by_thread_;
};

// The windows whose sample the state decides, by thread and time: those
// not plain work (StateMeaning.function set) whose sample no wait of the
// trace covers, each cut short where the thread's next wait begins, so
// that a sample is never claimed by both. Where a wait covers the sample,
// its kind beats the state's: LLVM libomp 14 says wait_lock in a critical
// section and wait_barrier_implicit for a worker idle between regions.
std::vector<StateWindow> untraced_windows(const std::vector<StateWindow>& windows, const TraceWaits& waits);

// What the analysis makes of the sample of a state record (the metrics,
// the view modes): the kind of the trace's wait covering it (idle or a
// wait), else the state's own class.
StateClass decided_class(const OmpState& state, const TraceWaits& waits);

}  // namespace lumen::omp
