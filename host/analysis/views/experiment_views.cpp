#include "experiment_views.h"

#include <cstdio>
#include <optional>
#include <utility>

#include "data_file_reader.h"
#include "experiment_metadata.h"
#include "hex_text.h"
#include "metric_cells.h"
#include "metric_sum.h"

namespace lumen::analysis {

std::string seconds_text(uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e9);
  return text;
}

namespace {

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

std::string titled(const char* title, lumen_metric_unit unit) {
  return title + std::string(unit == LUMEN_UNIT_NANOSECONDS ? " (sec.)" : "");
}

// The process figures from start to end, labelled as the process's own so
// they read apart from the metric totals beside them.
void add_process_figures(Record& r, const lumen_sample_record& sum) {
  for (const Figure& f : kFigures) {
    const bool cpu = f.field == &lumen_sample_record::user_ns || f.field == &lumen_sample_record::system_ns;
    r.add_number(f.key, titled((std::string(f.title) + (cpu ? " of the process" : "")).c_str(), f.unit),
                 shown(f.unit, sum.*f.field), {f.unit});
  }
  r.add_number("totalcpu", "Total CPU Time of the process (sec.)", shown(LUMEN_UNIT_NANOSECONDS, sum.user_ns + sum.system_ns),
               {LUMEN_UNIT_NANOSECONDS});
}

// The CPU-time metrics' <Total> beside the process's own figures (its
// rusage, which counts every thread from start to end, sampled or not):
// what share of the process's user, system and total CPU time the
// samples account for.
void add_cpu_comparison(Record& r, const lumen_sample_record& sum, const Values& totals, const MetricRegistry& registry,
                        bool with_totals) {
  const std::pair<const char*, uint64_t> figures[] = {
      {"user", sum.user_ns}, {"system", sum.system_ns}, {"totalcpu", sum.user_ns + sum.system_ns}};
  for (const auto& [keyword, process_ns] : figures) {
    const std::optional<size_t> m = registry.find(keyword);
    if (!m) continue;
    const MetricDef& def = registry.metrics()[*m];
    const double profiled = registry.value_of(*m, totals);
    if (with_totals)
      r.add_number(std::string("total.") + keyword, "<Total> " + titled(def.title.c_str(), def.unit),
                   shown_value(def, profiled), {def.unit});
    r.add_number(std::string("profiled.") + keyword, "<Total> " + def.title + " / the process's (%)",
                 process_ns == 0 ? 0.0 : 100.0 * profiled / static_cast<double>(process_ns), {LUMEN_UNIT_COUNT, true});
  }
}

// A figure of the process's own that a plugin's records carry
// (lumen_analysis_descriptor.process_figures), summed over the experiment.
struct PluginFigure {
  std::string metric;
  std::string title;
  double amount = 0;
};

void add_figure(void* context, const char* metric, const char* title, double amount) {
  auto& figures = *static_cast<std::vector<PluginFigure>*>(context);
  if (metric == nullptr || title == nullptr) return;
  for (PluginFigure& f : figures)
    if (f.metric == metric && f.title == title) {
      f.amount += amount;
      return;
    }
  figures.push_back({metric, title, amount});
}

// The figures of every plugin of the experiment that offers some; a data
// file one cannot read gives none (its damage is reported where it is
// decoded).
std::vector<PluginFigure> plugin_figures(const Experiment& e) {
  std::vector<PluginFigure> all;
  for (const DataFile& file : e.data_files()) {
    if (file.half == nullptr || file.half->descriptor->process_figures == nullptr) continue;
    const auto path = e.path() / file.name;
    if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path))) continue;
    std::vector<PluginFigure> figures;
    bool readable = true;
    try {
      read_data_file(
          path,
          [&](const RawRecord& r) {
            if (readable && file.half->descriptor->process_figures(r.kind, r.payload, r.payload_bytes, add_figure,
                                                                   &figures) != 0)
              readable = false;
          },
          file.readable_bytes);
    } catch (const std::exception&) {
      readable = false;
    }
    if (readable) all.insert(all.end(), figures.begin(), figures.end());
  }
  return all;
}

// Each plugin figure beside its metric's <Total>, as the CPU time beside
// the process's rusage.
void add_plugin_comparison(Record& r, const std::vector<PluginFigure>& figures, const Values& totals,
                           const MetricRegistry& registry, bool with_totals) {
  for (const PluginFigure& f : figures) {
    const std::optional<size_t> m = registry.find(f.metric);
    if (!m) continue;
    const MetricDef& def = registry.metrics()[*m];
    const double profiled = registry.value_of(*m, totals);
    r.add_number("process." + f.metric, titled(f.title.c_str(), def.unit), shown_value(def, f.amount), {def.unit});
    if (with_totals)
      r.add_number("total." + f.metric, "<Total> " + titled(def.title.c_str(), def.unit), shown_value(def, profiled),
                   {def.unit});
    r.add_number("profiled." + f.metric, "<Total> " + def.title + " / the process's (%)",
                 f.amount == 0 ? 0.0 : 100.0 * profiled / f.amount, {LUMEN_UNIT_COUNT, true});
  }
}

Values experiment_totals(const StackProfile& profile, uint32_t experiment, uint64_t* events) {
  Values totals(profile.metric_count());
  for (const auto& [key, share] : profile.threads()) {
    if (key.first != experiment) continue;
    *events += share.events;
    add_values(totals.data(), share.values.data(), totals.size());
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
  const MetricSelection once = exclusive_once(request.metrics);
  table.columns = columns_of(once, registry);
  table.name_position = table.columns.size();
  const Values& total = profile.functions().total();
  for (size_t e = 0; e < experiments.size(); ++e) {
    for (const uint32_t tid : experiments[e]->threads()) {
      const auto it = profile.threads().find({static_cast<uint32_t>(e), tid});
      const Values* values = it == profile.threads().end() ? nullptr : &it->second.values;
      ViewRow row;
      row.name = "Thread " + std::to_string(experiments[e]->thread_number(tid));
      const Experiment::ThreadName* named = experiments[e]->thread_name(tid);
      // "Thread 7 (C2 CompilerThread0, system)": a runtime's own thread.
      if (named != nullptr)
        row.name += " (" + named->name + (named->runtime_system ? ", system)" : ")");
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
    add_process_figures(r, sum);
    uint64_t events = 0;
    const Values totals = experiment_totals(profile, static_cast<uint32_t>(e), &events);
    r.add_number("events", "Events selected", static_cast<double>(events));
    for (size_t m = 0; m < registry.size(); ++m) {
      const MetricDef& def = registry.metrics()[m];
      r.add_number("total." + def.keyword, "<Total> " + titled(def.title.c_str(), def.unit),
                   shown_value(def, registry.value_of(m, totals)), {def.unit});
    }
    add_cpu_comparison(r, sum, totals, registry, false);
    add_plugin_comparison(r, plugin_figures(experiment), totals, registry, false);
    records.push_back(std::move(r));
  }
  return record_document("overview", "Overview", std::move(records));
}

Document statistics(const Experiments& experiments, const StackProfile& profile, const MetricRegistry& registry) {
  std::vector<Record> records;
  for (size_t e = 0; e < experiments.size(); ++e) {
    const Experiment& experiment = *experiments[e];
    Record r;
    r.heading = experiment.path().string();
    uint64_t events = 0;
    const Values totals = experiment_totals(profile, static_cast<uint32_t>(e), &events);
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
    add_process_figures(r, sum);
    add_cpu_comparison(r, sum, totals, registry, true);
    add_plugin_comparison(r, plugin_figures(experiment), totals, registry, true);
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
