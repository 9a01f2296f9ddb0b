#include "process_stops.h"

namespace lumen::states {

namespace {

// Unexplained time below this is the machine's noise (timer slack, a
// wake-up on a busy host), not a stop.
uint64_t noise_ns(uint64_t period_ns) {
  constexpr uint64_t kAtLeast = 2'000'000;
  return period_ns / 2 > kAtLeast ? period_ns / 2 : kAtLeast;
}

}  // namespace

void ProcessStops::begin_tick(uint64_t now_ns) {
  ++tick_;
  start_ns_ = now_ns;
  // The runtime schedules a tick a period after the previous one ended (or
  // earlier): lateness past that is a lower bound of the true lateness.
  late_ns_ = previous_end_ns_ != 0 && now_ns > previous_end_ns_ + period_ns_ ? now_ns - previous_end_ns_ - period_ns_ : 0;
}

bool ProcessStops::ask_own(bool batch_reads, TaskFiles& own, TaskFiles& reader) const {
  own.wants_whereabouts = reader.wants_whereabouts = false;
  own.wants_counters = !own_known_ || batch_reads || late_ns_ > noise_ns(period_ns_);
  reader.wants_counters = own.wants_counters;
  return own.wants_counters;
}

void ProcessStops::counted(const TaskFiles& own, const TaskFiles& reader) {
  SchedStat now, reader_now;
  if (!own.wants_counters || !own.counters(&now)) return;
  const bool reader_read = reader.counters(&reader_now);
  uint64_t stopped = 0;
  if (own_known_ && own_tick_ + 1 == tick_) {
    // One whole cycle since the previous reading: the period asleep, the
    // sampling thread's time on a CPU and waiting for one, its waits for
    // the reading thread as far as that thread worked or waited for a CPU
    // meanwhile; the rest it was stopped (in its sleep or in its tick alike).
    const uint64_t cycle = start_ns_ - own_start_ns_;
    uint64_t reader_wait = reader_wait_ns_ - own_reader_wait_ns_;
    if (reader_read && reader_known_) {
      const uint64_t reader_busy = (reader_now.cpu_ns - reader_.cpu_ns) + (reader_now.delay_ns - reader_.delay_ns);
      if (reader_busy < reader_wait) reader_wait = reader_busy;
    }
    const uint64_t explained =
        period_ns_ + (now.cpu_ns - own_.cpu_ns) + (now.delay_ns - own_.delay_ns) + reader_wait;
    stopped = cycle > explained ? cycle - explained : 0;
  } else if (own_known_) {
    // The sampling thread was not read at the previous tick (nothing to
    // read then): its lateness, past its wait for a CPU since, in the sleep
    // before this tick; the stop began somewhere in the period before the
    // deadline, half a period on average.
    const uint64_t delay = now.delay_ns - own_.delay_ns;
    stopped = late_ns_ > delay ? late_ns_ - delay + period_ns_ / 2 : 0;
  }
  own_ = now;
  own_known_ = true;
  reader_ = reader_now;
  reader_known_ = reader_read;
  own_tick_ = tick_;
  own_start_ns_ = start_ns_;
  own_reader_wait_ns_ = reader_wait_ns_;
  if (stopped > noise_ns(period_ns_)) stopped_total_ns_.fetch_add(stopped, std::memory_order_relaxed);
}

}  // namespace lumen::states
