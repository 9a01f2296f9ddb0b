// A test's other host's clock: built only into the tests' runtime
// (LUMEN_TEST_HOOKS, set with LUMEN_BUILD_TESTS; never in a package).
//
// LUMEN_TEST_CLOCK_SKEW=HOST:OFFSET_NS:DRIFT_PPM makes the time service's
// readings (what plugins stamp their events with) in every process on the
// host named HOST those of a clock OFFSET_NS ahead that runs DRIFT_PPM
// millionths fast: t + OFFSET_NS + t x DRIFT_PPM / 1e6. The same function
// of CLOCK_MONOTONIC in each process of the host, as one clock would be.
#pragma once

#include <cstdint>

namespace lumen::collector {

// Not signal-safe: once, at the start of collection.
void test_clock_skew_init();
// [signal-safe] `ns` as the skewed clock reads it (itself when none).
uint64_t test_clock_skewed(uint64_t ns);

}  // namespace lumen::collector
