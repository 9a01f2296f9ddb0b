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

// Visits, experiment by experiment and in file order, each event that the
// profile counted; `stack` indexes input.profile.stacks().
void for_each_selected_event(const ExportInput& input, const SelectedEventVisitor& visit);

}  // namespace lumen::exporting
