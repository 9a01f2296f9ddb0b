// What an OMPT runtime's thread state (ompt_state_t, recorded at each clock
// sample: OmpState) says of that sample, and the stretch of its thread's
// time each recorded state stands for.
#pragma once

#include <cstdint>
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

}  // namespace lumen::omp
