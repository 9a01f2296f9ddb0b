// An OpenMP trace as the analysis reads it: the records of one data file,
// and the waits the trace implies without recording them (a thread's wait
// at the end of a region, a worker's idle time between regions).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "../omp_record.h"

namespace lumen::omp {

struct OmpTrace {
  std::vector<OmpRegion> regions;
  std::vector<OmpTask> tasks;
  std::vector<OmpWait> waits;  // recorded (add() leaves them to the decoder)
  std::vector<OmpExplicitTask> explicit_tasks;
  std::vector<OmpState> states;  // one per clock sample, under an OMPT runtime
  uint64_t end_ns = 0;  // the process's end, else the latest time recorded
  // The process's end was recorded (omp's stop; the other plugins' stops
  // record the threads' last stretches a little later).
  bool process_ended = false;

  // Takes one record; returns false for a record too short for its kind,
  // or a region-and-task record whose task lies outside its region.
  bool add(uint16_t kind, const void* payload, uint16_t bytes);

  // The waits implied by regions and tasks: each thread's implicit barrier
  // from the end of its task to the end of the region, and each worker's
  // idle time from the end of a region it worked for to its next task (or
  // to the end). Kind, thread, begin and end are set.
  std::vector<OmpWait> implied_waits() const;

  // `waits` less the time their thread ran explicit tasks in them (a
  // thread at a barrier or taskwait runs the team's tasks: that is work):
  // each wait in pieces, those of no length left out.
  std::vector<OmpWait> outside_explicit_tasks(const std::vector<OmpWait>& waits) const;
};

}  // namespace lumen::omp
