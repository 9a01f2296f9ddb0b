#include "experiment_views.h"

#include <cstdio>

#include "experiment_metadata.h"
#include "hex_text.h"
#include "metric_cells.h"

namespace lumen::analysis {

namespace {

std::string seconds_text(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e9);
  return text;
}

// Seconds since the experiment's start of a time on the events' clock.
std::string since_start(const Experiment& e, uint64_t ns) {
  return seconds_text(ns >= e.start_ns() ? ns - e.start_ns() : 0);
}

struct Figure {
  const char* key;
  const char* title;
  lumen_metric_unit unit;
  uint64_t lumen_sample_record::*field;
};

// The process figures a sample carries, in the order views show them.
const Figure kFigures[] = {
    {"duration", "Duration", LUMEN_UNIT_NANOSECONDS, &lumen_sample_record::time_ns},
    {"user", "User CPU Time", LUMEN_UNIT_NANOSECONDS, &lumen_sample_record::user_ns},
    {"system", "System CPU Time", LUMEN_UNIT_NANOSECONDS, &lumen_sample_record::system_ns},
    {"minor_faults", "Minor Faults", LUMEN_UNIT_COUNT, &lumen_sample_record::minor_faults},
    {"major_faults", "Major Faults", LUMEN_UNIT_COUNT, &lumen_sample_record::major_faults},
    {"voluntary_switches", "Voluntary Switches", LUMEN_UNIT_COUNT, &lumen_sample_record::voluntary_switches},
    {"involuntary_switches", "Involuntary Switches", LUMEN_UNIT_COUNT, &lumen_sample_record::involuntary_switches},
    {"blocks_in", "Blocks In", LUMEN_UNIT_COUNT, &lumen_sample_record::blocks_in},
    {"blocks_out", "Blocks Out", LUMEN_UNIT_COUNT, &lumen_sample_record::blocks_out},
};

double shown(lumen_metric_unit unit, uint64_t raw) {
  return unit == LUMEN_UNIT_NANOSECONDS ? static_cast<double>(raw) / 1e9 : static_cast<double>(raw);
}

// Figures summed over an experiment's samples (= last point minus first).
lumen_sample_record summed(const Experiment& e) {
  lumen_sample_record sum{};
  for (const Sample& s : e.samples().samples())
    for (const Figure& f : kFigures) sum.*f.field += s.delta.*f.field;
  return sum;
}

Values experiment_totals(const StackProfile& profile, uint32_t experiment, uint64_t* events) {
  Values totals(profile.metric_count());
  for (const auto& [key, share] : profile.threads()) {
    if (key.first != experiment) continue;
    *events += share.events;
    for (size_t m = 0; m < totals.size(); ++m) totals[m] += share.values[m];
  }
  return totals;
}

}  // namespace

ViewTable object_list_view(const Experiments& experiments, const StackProfile& profile, const ProgramStructure& structure) {
  ViewTable table;
  table.view = "object_list";
  table.title = "Load objects mapped (times in seconds since the start)";
  table.name_position = 0;
  for (size_t e = 0; e < experiments.size(); ++e) {
    const Experiment& experiment = *experiments[e];
    for (const MappedObject& o : experiment.loadobjects().objects()) {
      ViewRow row;
      row.name = std::filesystem::path(o.path).filename().string();
      if (row.name.empty()) row.name = o.path;
      row.load_object = o.path;
      const auto id = structure.find_object(o.path);
      const bool has_data = id && profile.objects().node(*id) != nullptr;
      row.fields = {{"experiment", std::to_string(e + 1)},
                    {"start", hex(o.start)},
                    {"end", hex(o.end)},
                    {"loaded", since_start(experiment, o.loaded_ns)},
                    {"unloaded", o.unloaded_ns == UINT64_MAX ? "" : since_start(experiment, o.unloaded_ns)},
                    {"data", has_data ? "yes" : "no"}};
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

ViewTable thread_list_view(const Experiments& experiments, const StackProfile& profile, const MetricRegistry& registry,
                           const ViewRequest& request) {
  ViewTable table;
  table.view = "thread_list";
  table.title = "Threads (number, kernel id, events selected, metric totals)";
  // A thread's share is one figure per metric: show each metric once.
  MetricSelection once;
  for (const MetricColumn& c : request.metrics.columns) {
    MetricColumn column{Flavor::Exclusive, c.metric, c.percent};
    bool seen = false;
    for (const MetricColumn& o : once.columns) seen = seen || (o.metric == column.metric && o.percent == column.percent);
    if (!seen) once.columns.push_back(column);
  }
  table.columns = columns_of(once, registry);
  table.name_position = table.columns.size();
  const Values& total = profile.functions().total();
  for (size_t e = 0; e < experiments.size(); ++e) {
    for (const uint32_t tid : experiments[e]->threads()) {
      const auto it = profile.threads().find({static_cast<uint32_t>(e), tid});
      const Values* values = it == profile.threads().end() ? nullptr : &it->second.values;
      ViewRow row;
      row.name = "Thread " + std::to_string(experiments[e]->thread_number(tid));
      row.load_object = experiments[e]->path().filename().string();
      row.values = row_values(once, registry, values, values, total);
      row.fields = {{"experiment", std::to_string(e + 1)},
                    {"thread", std::to_string(experiments[e]->thread_number(tid))},
                    {"tid", std::to_string(tid)},
                    {"events", std::to_string(it == profile.threads().end() ? 0 : it->second.events)}};
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

ViewTable samples_view(const Experiments& experiments) {
  ViewTable table;
  table.view = "samples";
  table.title = "Samples (figures are the differences across each sample; resident size at its end)";
  for (const Figure& f : kFigures) table.columns.push_back({f.key, "", f.title, f.unit, false});
  table.columns.push_back({"resident", "", "Resident Size", LUMEN_UNIT_BYTES, false});
  table.name_position = table.columns.size();
  for (size_t e = 0; e < experiments.size(); ++e) {
    const Experiment& experiment = *experiments[e];
    for (const Sample& s : experiment.samples().samples()) {
      ViewRow row;
      row.name = s.name.empty() ? sample_reason_word(s.reason) : sample_reason_word(s.reason) + " " + s.name;
      row.load_object = experiment.path().filename().string();
      for (const Figure& f : kFigures) row.values.push_back(shown(f.unit, s.delta.*f.field));
      row.values.push_back(static_cast<double>(s.delta.resident_bytes));
      row.fields = {{"experiment", std::to_string(e + 1)},
                    {"sample", std::to_string(s.number)},
                    {"start", since_start(experiment, s.start_ns)},
                    {"end", since_start(experiment, s.end_ns)}};
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

Document overview(const Experiments& experiments, const StackProfile& profile, const MetricRegistry& registry) {
  std::vector<Record> records;
  for (size_t e = 0; e < experiments.size(); ++e) {
    const Experiment& experiment = *experiments[e];
    Record r;
    r.heading = experiment.path().string();
    const lumen_sample_record sum = summed(experiment);
    r.add_number("samples", "Samples", static_cast<double>(experiment.samples().samples().size()));
    for (const Figure& f : kFigures)
      r.add_number(f.key, f.title + std::string(f.unit == LUMEN_UNIT_NANOSECONDS ? " (sec.)" : ""),
                   shown(f.unit, sum.*f.field), {f.unit});
    uint64_t events = 0;
    const Values totals = experiment_totals(profile, static_cast<uint32_t>(e), &events);
    r.add_number("events", "Events selected", static_cast<double>(events));
    for (size_t m = 0; m < registry.size(); ++m) {
      const MetricDef& def = registry.metrics()[m];
      r.add_number("total." + def.keyword, def.title + (def.unit == LUMEN_UNIT_NANOSECONDS ? " (sec.)" : ""),
                   shown_value(def, registry.value_of(m, totals)), {def.unit});
    }
    records.push_back(std::move(r));
  }
  return record_document("overview", "Overview", std::move(records));
}

Document statistics(const Experiments& experiments, const StackProfile& profile) {
  std::vector<Record> records;
  for (size_t e = 0; e < experiments.size(); ++e) {
    const Experiment& experiment = *experiments[e];
    Record r;
    r.heading = experiment.path().string();
    uint64_t events = 0;
    experiment_totals(profile, static_cast<uint32_t>(e), &events);
    uint64_t stacks = 0;
    for (const UniqueStack& s : profile.stacks()) stacks += s.experiment == e;
    r.add_number("events", "Events selected", static_cast<double>(events));
    r.add_number("unique_stacks", "Unique stacks selected", static_cast<double>(stacks));
    r.add_number("stacks_recorded", "Stacks recorded", static_cast<double>(experiment.stacks().size()));
    r.add_number("threads", "Threads", static_cast<double>(experiment.threads().size()));
    r.add_number("data_files", "Data files", static_cast<double>(experiment.data_files().size()));
    r.add_number("load_objects", "Load objects mapped", static_cast<double>(experiment.loadobjects().objects().size()));
    r.add_number("sample_points", "Sample points", static_cast<double>(experiment.samples().points().size()));
    const lumen_sample_record sum = summed(experiment);
    for (const Figure& f : kFigures)
      r.add_number(f.key, f.title + std::string(f.unit == LUMEN_UNIT_NANOSECONDS ? " (sec.)" : ""),
                   shown(f.unit, sum.*f.field), {f.unit});
    for (const YAML::Node& entry : experiment.log())
      if (entry["event"] && entry["event"].as<std::string>() == metadata::log_event::kEnd)
        r.add_number("dropped_records", "Records dropped", entry["dropped_records"].as<double>(0));
    records.push_back(std::move(r));
  }
  Record all;
  all.heading = "<Total>";
  all.add_number("events", "Events selected", static_cast<double>(profile.events()));
  all.add_number("events_read", "Events read", static_cast<double>(profile.events_read()));
  all.add_number("unique_stacks", "Unique stacks selected", static_cast<double>(profile.unique_stacks()));
  all.add_number("experiments", "Experiments", static_cast<double>(experiments.size()));
  records.push_back(std::move(all));
  return record_document("statistics", "Statistics", std::move(records));
}

}  // namespace lumen::analysis
