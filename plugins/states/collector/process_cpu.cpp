#include "process_cpu.h"

#include <time.h>

#include "proc_reader.h"

namespace lumen::states {

namespace {

// Readings of the clocks that took this much longer than the shortest of
// late (times 2, plus 2 µs) had something else in them (a preemption, an
// interrupt): what a thread on a CPU ran meanwhile counts at this tick and
// is taken back at the next one, so no reading refers to such a tick.
bool usual_span(uint64_t span_ns, uint64_t* floor_ns) {
  // The floor follows the shortest spans, and rises slowly when the
  // machine gets slower (its load: system calls cost more).
  *floor_ns = *floor_ns == 0 || span_ns < *floor_ns ? span_ns : *floor_ns + (span_ns - *floor_ns) / 32;
  return span_ns <= *floor_ns * 3 / 2 + 2'000;
}

bool process_cpu_ns(uint64_t* ns) {
  timespec at{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &at) != 0) return false;
  *ns = static_cast<uint64_t>(at.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(at.tv_nsec);
  return true;
}

}  // namespace

void ProcessCpu::begin_tick(const lumen_runtime& runtime, uint64_t tick) {
  tick_ = tick;
  started_ns_ = runtime.time->now_ns();
  explained_ns_ = 0;
  total_before_ns_ = total_ns_;
  reliable_before_ = reliable_;
  uint32_t tids[kMaxCollectors];
  collectors_ = runtime.threads->collector_thread_ids != nullptr
                    ? runtime.threads->collector_thread_ids(tids, kMaxCollectors)
                    : 0;
}

void ProcessCpu::weigh(const lumen_runtime& runtime, uint32_t own) {
  if (runtime.threads->collector_thread_ids == nullptr) return;
  uint32_t tids[kMaxCollectors];
  uint64_t clocks[kMaxCollectors];
  bool read[kMaxCollectors];
  size_t count = runtime.threads->collector_thread_ids(tids, kMaxCollectors);
  // The sampling thread's own clock last, just before the process's.
  for (size_t i = 0; i + 1 < count; ++i)
    if (tids[i] == own) tids[i] = tids[count - 1], tids[count - 1] = own;
  // What the process's clock says since its previous reading, at whichever
  // tick: the difference of two readings counts every thread's time once.
  const bool chained = weighed_tick_ != 0;
  for (size_t i = 0; i < count; ++i) {
    read[i] = thread_cpu_clock_ns(tids[i], &clocks[i]);
    if (!read[i] || !chained) continue;
    // Explained only when read with the previous process clock too (one
    // that began since is not: its time before that is not in the
    // difference of the process's clocks).
    for (size_t k = 0; k < weighed_count_; ++k)
      if (tids_[k] == tids[i] && read_[k] && clocks[i] >= clocks_[k])
        explained_ns_ += static_cast<int64_t>(clocks[i] - clocks_[k]);
  }
  uint64_t process = 0;
  const bool process_read = process_cpu_ns(&process);
  const uint64_t ended_ns = runtime.time->now_ns();
  if (process_read && chained && process >= process_ns_) {
    total_ns_ += static_cast<int64_t>(process - process_ns_) - explained_ns_;
  } else {
    total_ns_ += kUnknownNs;
  }
  // Only the ends of a sum count: a tick whose readings took longer than
  // usual may be referred to by no reading, and costs nothing otherwise.
  reliable_ = process_read && usual_span(ended_ns - started_ns_, &span_floor_ns_);
  weighed_tick_ = process_read ? tick_ : 0;
  process_ns_ = process;
  for (size_t i = 0; i < count; ++i) tids_[i] = tids[i], clocks_[i] = clocks[i], read_[i] = read[i];
  weighed_count_ = count;
}

bool ProcessCpu::is_collector(uint32_t tid) const {
  for (size_t i = 0; i < weighed_count_; ++i)
    if (tids_[i] == tid) return true;
  return false;
}

}  // namespace lumen::states
