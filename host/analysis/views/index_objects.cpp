#include "index_objects.h"

#include <algorithm>
#include <map>

#include "experiment_hosts.h"
#include "interval_split.h"
#include "metric_cells.h"
#include "metric_sum.h"

namespace lumen::analysis {

std::vector<IndexObjectType> predefined_index_objects() {
  return {{"Threads", "Thread", EventExpression::parse("THRID"), true},
          {"CPUs", "CPU", EventExpression::parse("CPUID"), true},
          {"Samples", "Sample", EventExpression::parse("SAMPLE"), true},
          {"Seconds", "Second", EventExpression::parse("TSTAMP/1000000000"), true},
          {"Hosts", "Host", EventExpression::parse("HOSTID"), true},
          {"Processes", "Process", EventExpression::parse("PID"), true}};
}

Document index_object_list(const std::vector<IndexObjectType>& types) {
  RecordList list{"index_objects", "", "", RecordLayout::Columns, {}};
  for (const IndexObjectType& type : types) {
    Record r;
    r.add("name", "Name", type.name);
    r.add("expression", "Expression", type.expression.text());
    r.add("kind", "Kind", type.predefined ? "predefined" : "defined");
    list.records.push_back(std::move(r));
  }
  return {"indxobj_list", "Index object types:", {std::move(list)}, {}};
}

ViewTable index_object_view(const IndexObjectType& type, const std::vector<std::unique_ptr<Experiment>>& experiments,
                            const MetricRegistry& registry, const ViewRequest& request, const EventFilter& filter) {
  const size_t metric_count = registry.size();
  std::map<std::pair<size_t, int64_t>, Values> groups;  // (experiment or 0, value) -> values
  Values total(metric_count, 0);
  const IntervalSplits splits(experiments, registry);
  const bool per_experiment = experiments.size() > 1 && type.name != "Hosts" && type.name != "Processes";
  // A process is named by its command, the latest image's (after an exec).
  std::map<int64_t, std::string> commands;
  for (const auto& experiment : experiments) commands[experiment->target_pid()] = experiment->command_text();
  const ExperimentHosts hosts = experiment_hosts(experiments);
  for (size_t e = 0; e < experiments.size(); ++e) {
    const Experiment& experiment = *experiments[e];
    const uint64_t start = experiment.start_ns();
    experiment.for_each_event([&](const DataFile& file, const lumen_event& event) {
      if (filter && !filter(e, event)) return;
      EventTokens tokens;
      tokens.thread = experiment.thread_number(event.thread_id);
      tokens.cpu = event.cpu;
      tokens.sample = experiment.samples().sample_at(event.time_ns);
      tokens.timestamp = event.time_ns >= start ? static_cast<int64_t>(event.time_ns - start) : 0;
      tokens.experiment = static_cast<int64_t>(e + 1);
      tokens.host = hosts.of_experiment[e];
      tokens.pid = experiment.target_pid();
      Values& row = groups[{per_experiment ? e + 1 : 0, type.expression.evaluate(tokens)}];
      if (row.empty()) row.assign(metric_count, 0);
      for (size_t m = 0; m < file.metric_index.size(); ++m) add_saturating(row[file.metric_index[m]], event.values[m]);
      splits.add_shares(e, file, event, row.data());
    });
  }
  for (const auto& [key, values] : groups)
    add_values(total.data(), values.data(), metric_count);

  ViewTable table;
  table.view = "indxobj";
  table.title = type.name + " with their metrics:";
  table.columns = columns_of(request.metrics, registry);
  table.name_position = request.metrics.name_position;
  ViewRow total_row;
  total_row.name = "<Total>";
  total_row.values = row_values(request.metrics, registry, &total, &total, total);
  table.rows.push_back(std::move(total_row));
  std::vector<std::pair<std::pair<size_t, int64_t>, const Values*>> order;
  for (const auto& [key, values] : groups) order.emplace_back(key, &values);
  if (!request.sort.by_name)
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
      return sort_value_of(request.sort, registry, a.second, a.second) >
             sort_value_of(request.sort, registry, b.second, b.second);
    });
  for (const auto& [key, values] : order) {
    if (request.limit && table.rows.size() > *request.limit) break;
    std::string name = type.row_label + " " + std::to_string(key.second);
    // A host is named: "Host 2 (node7)".
    if (type.name == "Hosts" && key.second >= 1 && static_cast<size_t>(key.second) <= hosts.names.size())
      name += " (" + hosts.names[key.second - 1] + ")";
    if (type.name == "Processes" && commands.count(key.second) && !commands[key.second].empty())
      name += " (" + commands[key.second] + ")";
    if (key.first > 0) name = "Exp. " + std::to_string(key.first) + " " + name;
    ViewRow row;
    row.name = name;
    row.values = row_values(request.metrics, registry, values, values, total);
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace lumen::analysis
