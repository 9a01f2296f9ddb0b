// The single events behind a stack profile, for the exporters that keep
// time (chrome, speedscope): every event the profile's filters select,
// with the unique stack it was counted on, and what shape it has on a
// timeline.
#pragma once

#include <functional>

#include "export_formats.h"

namespace lumen::exporting {

// How a data file's events look on a timeline. A plugin whose metrics hold
// a time and a count traces calls: each event is a call that ended at its
// time and lasted its time value (sync waits, MPI and I/O calls). One with
// times only samples (clock): each event is an instant standing for the
// time before it. Any other (heap, counters) records points in time.
enum class EventShape { Call, Sample, Point };

struct FileShape {
  EventShape shape = EventShape::Point;
  size_t duration_value = 0;  // Call: the index into lumen_event.values of its duration
};

FileShape shape_of(const analysis::DataFile& file, const analysis::MetricRegistry& registry);

using SelectedEventVisitor =
    std::function<void(size_t experiment, const analysis::DataFile& file, const lumen_event& event, uint32_t stack)>;

// What decoders draw beside their events (lumen_span, levels): a span is
// selected as an event of its thread at its end would be; a level is the
// process's and is always visited.
struct SelectedTimeline {
  std::function<void(size_t experiment, const analysis::DataFile& file, const lumen_span& span)> span;
  std::function<void(size_t experiment, const analysis::DataFile& file, const char* name, lumen_metric_unit unit,
                     uint64_t time_ns, int64_t value)>
      level;
};

// Visits, experiment by experiment and in file order, each event that the
// profile counted; `stack` indexes input.profile.stacks(). With `timeline`,
// the spans and levels of the same pass too.
void for_each_selected_event(const ExportInput& input, const SelectedEventVisitor& visit,
                             const SelectedTimeline* timeline = nullptr);

// Whether `span` is in the selection (`filter` empty: all are).
bool span_selected(const analysis::EventFilter& filter, size_t experiment, const lumen_span& span);

}  // namespace lumen::exporting
