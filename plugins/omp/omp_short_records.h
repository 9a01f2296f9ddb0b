// The short forms of the two records every parallel region writes: a
// region with its encountering thread's task, and each other thread's
// task. A traced region's cost is mostly its records' bytes (each new page
// of a data file is work for some CPU of the program's), so the writer
// uses these whenever the values fit: times as 32-bit offsets from a
// 64-bit begin (regions and tasks up to 4.29 s), a parent region as the low
// half of its id (a region's parent is its own process's, whose ids share
// the high half), team sizes in 16 bits. 60 and 32 bytes with their words
// where the long forms take 80 and 40. Shared by the plugin's two halves.
#pragma once

#include <cstdint>

#include "omp_record.h"

namespace lumen::omp {

struct OmpShortRegionTask {
  uint64_t region_id;
  uint64_t call_stack_id;
  uint64_t body;
  uint64_t begin_ns;
  uint32_t parent_low;  // the parent's id's low half; 0: no parent
  uint32_t end_offset_ns;
  uint32_t task_begin_offset_ns;
  uint32_t task_end_offset_ns;
  uint32_t thread_id;
  uint16_t team_size;
  uint16_t requested_threads;
};
static_assert(sizeof(OmpShortRegionTask) == 56, "record layout");

struct __attribute__((packed, aligned(4))) OmpShortTask {
  uint64_t region_id;
  uint64_t begin_ns;
  uint32_t end_offset_ns;
  uint32_t thread_id;
  uint32_t thread_num;
};
static_assert(sizeof(OmpShortTask) == 28, "record layout");

inline constexpr uint64_t kLowHalf = 0xffffffffu;

// False when a value does not fit: the long form is written then.
inline bool shorten(const OmpRegionTask& full, OmpShortRegionTask* out) {
  const OmpRegion& r = full.region;
  const uint64_t parent = r.parent_region_id;
  const bool parent_fits = parent == 0 || ((parent >> 32) == (r.region_id >> 32) && (parent & kLowHalf) != 0);
  if (!parent_fits || r.end_ns < r.begin_ns || r.end_ns - r.begin_ns > kLowHalf || r.team_size > UINT16_MAX ||
      r.requested_threads > UINT16_MAX || r.reserved != 0)
    return false;
  *out = OmpShortRegionTask{r.region_id,
                            r.call_stack_id,
                            r.body,
                            r.begin_ns,
                            static_cast<uint32_t>(parent & kLowHalf),
                            static_cast<uint32_t>(r.end_ns - r.begin_ns),
                            full.task_begin_offset_ns,
                            full.task_end_offset_ns,
                            r.thread_id,
                            static_cast<uint16_t>(r.team_size),
                            static_cast<uint16_t>(r.requested_threads)};
  return true;
}

inline OmpRegionTask lengthen(const OmpShortRegionTask& s) {
  OmpRegionTask full{};
  OmpRegion& r = full.region;
  r.region_id = s.region_id;
  r.parent_region_id = s.parent_low == 0 ? 0 : (s.region_id & ~kLowHalf) | s.parent_low;
  r.call_stack_id = s.call_stack_id;
  r.body = s.body;
  r.begin_ns = s.begin_ns;
  r.end_ns = s.begin_ns + s.end_offset_ns;
  r.thread_id = s.thread_id;
  r.team_size = s.team_size;
  r.requested_threads = s.requested_threads;
  full.task_begin_offset_ns = s.task_begin_offset_ns;
  full.task_end_offset_ns = s.task_end_offset_ns;
  return full;
}

inline bool shorten(const OmpTask& full, OmpShortTask* out) {
  if (full.end_ns < full.begin_ns || full.end_ns - full.begin_ns > kLowHalf) return false;
  out->region_id = full.region_id;
  out->begin_ns = full.begin_ns;
  out->end_offset_ns = static_cast<uint32_t>(full.end_ns - full.begin_ns);
  out->thread_id = full.thread_id;
  out->thread_num = full.thread_num;
  return true;
}

inline OmpTask lengthen(const OmpShortTask& s) {
  return OmpTask{s.region_id, s.begin_ns, s.begin_ns + s.end_offset_ns, s.thread_id, s.thread_num};
}

}  // namespace lumen::omp
