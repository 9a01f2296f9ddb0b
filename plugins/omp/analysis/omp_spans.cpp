#include "omp_spans.h"

#include <unordered_map>

namespace lumen::omp {

void emit_region_spans(const OmpTrace& trace, const lumen_event_sink* sink) {
  if (sink->span == nullptr) return;
  std::unordered_map<uint64_t, const OmpRegion*> region_by_id;
  for (const OmpRegion& region : trace.regions) {
    if (region.end_ns < region.begin_ns) continue;
    region_by_id[region.region_id] = &region;
    lumen_emit_span(sink, kRegionSpanName, region.thread_id, region.begin_ns, region.end_ns, region.call_stack_id);
  }
  for (const OmpTask& task : trace.tasks) {
    const auto found = region_by_id.find(task.region_id);
    if (found == region_by_id.end()) continue;  // the region never ended (a crash)
    const OmpRegion& region = *found->second;
    if (task.thread_id == region.thread_id) continue;  // the encountering thread's span is the region's
    const uint64_t begin = task.begin_ns < region.end_ns ? task.begin_ns : region.end_ns;
    lumen_emit_span(sink, kRegionSpanName, task.thread_id, begin, region.end_ns, region.call_stack_id);
  }
}

}  // namespace lumen::omp
