#include "omp_trace.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "../omp_short_records.h"

namespace lumen::omp {

namespace {

template <typename Record>
bool read(const void* payload, uint16_t bytes, Record* record) {
  if (bytes < sizeof(Record)) return false;
  std::memcpy(record, payload, sizeof(Record));
  return true;
}

OmpWait wait_of(WaitKind kind, uint32_t thread, uint64_t region, uint64_t begin, uint64_t end) {
  OmpWait wait{};
  wait.kind = static_cast<uint16_t>(kind);
  wait.thread_id = thread;
  wait.region_id = region;
  wait.begin_ns = begin;
  wait.end_ns = end;
  wait.stack_id = LUMEN_NO_STACK;
  return wait;
}

}  // namespace

bool OmpTrace::add(uint16_t kind, const void* payload, uint16_t bytes) {
  if (kind == kRegionRecord) {
    OmpRegion region;
    if (!read(payload, bytes, &region)) return false;
    regions.push_back(region);
    end_ns = std::max(end_ns, region.end_ns);
  } else if (kind == kRegionTaskRecord || kind == kShortRegionTaskRecord) {
    OmpRegionTask both;
    OmpShortRegionTask short_form;
    if (kind == kShortRegionTaskRecord) {
      if (!read(payload, bytes, &short_form)) return false;
      both = lengthen(short_form);
    } else if (!read(payload, bytes, &both)) {
      return false;
    }
    const OmpRegion& region = both.region;
    if (both.task_begin_offset_ns > both.task_end_offset_ns || region.end_ns < region.begin_ns ||
        region.end_ns - region.begin_ns < both.task_end_offset_ns)
      return false;  // a task outside its region: damaged
    regions.push_back(region);
    tasks.push_back(OmpTask{region.region_id, region.begin_ns + both.task_begin_offset_ns,
                            region.begin_ns + both.task_end_offset_ns, region.thread_id, 0});
    end_ns = std::max(end_ns, region.end_ns);
  } else if (kind == kTaskRecord || kind == kShortTaskRecord) {
    OmpTask task;
    OmpShortTask short_task;
    if (kind == kShortTaskRecord) {
      if (!read(payload, bytes, &short_task)) return false;
      task = lengthen(short_task);
      if (task.end_ns < task.begin_ns) return false;  // its end past the clock's range: damaged
    } else if (!read(payload, bytes, &task)) {
      return false;
    }
    tasks.push_back(task);
    end_ns = std::max(end_ns, task.end_ns);
  } else if (kind == kWaitRecord) {
    OmpWait wait;
    if (!read(payload, bytes, &wait)) return false;
    end_ns = std::max(end_ns, wait.end_ns);
  } else if (kind == kExplicitTaskRecord) {
    OmpExplicitTask task;
    if (!read(payload, bytes, &task)) return false;
    explicit_tasks.push_back(task);
    end_ns = std::max(end_ns, task.end_ns);
  } else if (kind == kStateRecord) {
    OmpState state;
    if (!read(payload, bytes, &state)) return false;
    states.push_back(state);
  } else if (kind == kProcessEndRecord) {
    OmpProcessEnd end;
    if (!read(payload, bytes, &end)) return false;
    end_ns = std::max(end_ns, end.end_ns);
    process_ended = true;
  } else if (kind == kProcessRecord) {
    OmpProcess process;
    if (!read(payload, bytes, &process)) return false;
  }
  return true;
}

std::vector<OmpWait> OmpTrace::implied_waits() const {
  std::unordered_map<uint64_t, const OmpRegion*> region_by_id;
  for (const OmpRegion& r : regions) region_by_id[r.region_id] = &r;
  std::vector<OmpWait> waits;
  // A worker: a thread that ran a task other than its team's master's.
  std::map<uint32_t, std::vector<const OmpTask*>> worker_tasks;
  for (const OmpTask& task : tasks) {
    const auto region = region_by_id.find(task.region_id);
    if (region == region_by_id.end()) continue;  // the region never ended (a crash)
    if (region->second->end_ns > task.end_ns)
      waits.push_back(
          wait_of(WaitKind::kImplicitBarrier, task.thread_id, task.region_id, task.end_ns, region->second->end_ns));
    if (task.thread_num != 0) worker_tasks[task.thread_id].push_back(&task);
  }
  for (auto& [thread, list] : worker_tasks) {
    std::sort(list.begin(), list.end(), [](const OmpTask* a, const OmpTask* b) { return a->begin_ns < b->begin_ns; });
    uint64_t idle_from = 0;  // end of the last region the worker served
    for (const OmpTask* task : list) {
      if (idle_from != 0 && task->begin_ns > idle_from)
        waits.push_back(wait_of(WaitKind::kIdle, thread, 0, idle_from, task->begin_ns));
      idle_from = std::max(idle_from, region_by_id.at(task->region_id)->end_ns);
    }
    if (idle_from != 0 && end_ns > idle_from) waits.push_back(wait_of(WaitKind::kIdle, thread, 0, idle_from, end_ns));
  }
  return waits;
}

std::vector<OmpWait> OmpTrace::outside_explicit_tasks(const std::vector<OmpWait>& waits) const {
  if (explicit_tasks.empty()) return waits;
  std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> ran;  // per thread, sorted
  for (const OmpExplicitTask& task : explicit_tasks)
    if (task.end_ns > task.begin_ns) ran[task.thread_id].emplace_back(task.begin_ns, task.end_ns);
  for (auto& [thread, intervals] : ran) std::sort(intervals.begin(), intervals.end());
  std::vector<OmpWait> pieces;
  for (const OmpWait& wait : waits) {
    const auto found = ran.find(wait.thread_id);
    if (found == ran.end()) {
      pieces.push_back(wait);
      continue;
    }
    uint64_t from = wait.begin_ns;
    for (const auto& [begin, end] : found->second) {
      if (end <= from) continue;
      if (begin >= wait.end_ns) break;
      if (begin > from) {
        OmpWait piece = wait;
        piece.begin_ns = from;
        piece.end_ns = begin;
        pieces.push_back(piece);
      }
      from = std::max(from, end);
    }
    if (from < wait.end_ns) {
      OmpWait piece = wait;
      piece.begin_ns = from;
      pieces.push_back(piece);
    }
  }
  return pieces;
}

}  // namespace lumen::omp
