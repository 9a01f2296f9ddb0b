#include "timeline_view.h"

#include "metric_cells.h"
#include "metric_sum.h"

namespace lumen::analysis {

ViewTable timeline_view(const Experiments& experiments, const std::vector<TimelineBin>& bins, uint64_t bin_ns,
                        const ProgramStructure& structure, const MetricRegistry& registry, const ViewRequest& request) {
  ViewTable table;
  table.view = "timeline";
  table.title = "Timeline (each thread's events by time bin of " + seconds_text(bin_ns) +
                " s; the function is the leaf of the most of the sort metric)";
  const MetricSelection once = exclusive_once(request.metrics);
  table.columns = columns_of(once, registry);
  table.name_position = table.columns.size();
  Values total(registry.size(), 0);
  for (const TimelineBin& b : bins) add_values(total.data(), b.values.data(), total.size());
  for (const TimelineBin& b : bins) {
    const Experiment& experiment = *experiments[b.experiment];
    ViewRow row;
    row.name = structure.function(b.leaf).name;
    row.load_object = b.leaf == kTotalFunction ? "" : structure.object(structure.function(b.leaf).object).name;
    row.values = row_values(once, registry, &b.values, &b.values, total);
    row.fields = {{"experiment", std::to_string(b.experiment + 1)},
                  {"thread", std::to_string(experiment.thread_number(b.thread_id))},
                  {"tid", std::to_string(b.thread_id)},
                  {"start", seconds_text(uint64_t{b.bin} * bin_ns)},
                  {"end", seconds_text((uint64_t{b.bin} + 1) * bin_ns)},
                  {"events", std::to_string(b.events)}};
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace lumen::analysis
