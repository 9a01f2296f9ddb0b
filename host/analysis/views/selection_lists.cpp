#include "selection_lists.h"

#include <set>

namespace lumen::analysis {

Document selection_list(const std::string& view, const std::string& title, const std::vector<SelectionCount>& counts) {
  RecordList list{view == "cpu_list" ? "cpus" : view == "sample_list" ? "samples" : "lwps", "", "",
                  RecordLayout::Columns, {}};
  for (size_t i = 0; i < counts.size(); ++i) {
    Record r;
    r.add_number("experiment", "Exp", static_cast<double>(i + 1));
    r.add("selection", "Sel", counts[i].selection);
    r.add_number("total", "Total", static_cast<double>(counts[i].total));
    list.records.push_back(std::move(r));
  }
  return {view, title, {std::move(list)}, {}};
}

uint64_t cpus_recorded(const Experiment& experiment) {
  std::set<int32_t> cpus;
  experiment.for_each_event([&](const DataFile&, const lumen_event& event) {
    if (event.cpu >= 0) cpus.insert(event.cpu);
  });
  return cpus.size();
}

Document describe_view(const std::vector<std::unique_ptr<Experiment>>& experiments) {
  Document document{"describe", "", {}, {}};
  RecordList data{"experiments", "name", "Experiment", RecordLayout::Labelled, {}};
  for (size_t i = 0; i < experiments.size(); ++i) {
    const Experiment& e = *experiments[i];
    Record r;
    r.heading = std::to_string(i + 1) + " " + e.path().string();
    std::string plugins;
    for (const DataFile& file : e.data_files())
      if (plugins.find(file.plugin) == std::string::npos) plugins += (plugins.empty() ? "" : ", ") + file.plugin;
    r.add("data", "Data recorded", plugins.empty() ? "(none)" : plugins);
    r.add_number("threads", "Threads", static_cast<double>(e.threads().size()));
    r.add_number("samples", "Samples", static_cast<double>(e.samples().samples().size()));
    data.records.push_back(std::move(r));
  }
  document.lists.push_back(std::move(data));
  // What -filters accepts (event_selection.h).
  static const char* const kKeywords[][2] = {
      {"thread", "thread number, as -thread_list gives it: thread in 1-2, thread == 3"},
      {"sample", "sample number, as -sample_list counts them: sample in 2-5"},
      {"cpu", "CPU the event ran on (events that record one): cpu in 0,2"},
      {"time", "seconds since collection start: time >= 0.5, time in 1-2"},
      {"function", "a function on the event's stack: function == main"},
      {"THRID", "gprofng: thread number (THRID == 2, THRID IN (1,2))"},
      {"LWPID", "gprofng: the same as THRID (a Linux thread is its LWP)"},
      {"CPUID", "gprofng: CPU number"},
      {"SAMPLE_MAP", "gprofng: sample number"},
      {"TSTAMP", "gprofng: nanoseconds since collection start (TSTAMP >= 500000000)"},
      {"FNAME(\"f\") SOME IN STACK", "gprofng: function f is on the stack"},
  };
  RecordList keywords{"keywords", "", "", RecordLayout::Columns, {}};
  for (const auto& [name, meaning] : kKeywords) {
    Record r;
    r.add("keyword", "Keyword", name);
    r.add("meaning", "Meaning", meaning);
    keywords.records.push_back(std::move(r));
  }
  document.lists.push_back(std::move(keywords));
  return document;
}

Document metric_list_of(const std::string& view, const std::string& title, const MetricRegistry& registry,
                        uint32_t flavors) {
  RecordList list{"metrics", "", "", RecordLayout::Columns, {}};
  for (const MetricDef& m : registry.metrics()) {
    if ((m.flavors & flavors) == 0) continue;
    Record r;
    r.add("keyword", "Keyword", m.keyword);
    r.add("title", "Title", m.title);
    r.add("unit", "Unit", unit_word(m.unit));
    list.records.push_back(std::move(r));
  }
  return {view, title, {std::move(list)}, {}};
}

Document table_as_summaries(const std::string& view, const ViewTable& table) {
  RecordList list{"summaries", "name", "", RecordLayout::Labelled, {}};
  for (const ViewRow& row : table.rows) {
    Record r;
    r.heading = row.name;
    if (!row.load_object.empty()) r.add("load_object", "Load Object", row.load_object);
    for (const auto& [key, value] : row.fields)
      if (!value.empty()) r.add(key, key, value);
    for (size_t c = 0; c < table.columns.size() && c < row.values.size(); ++c) {
      const ViewColumn& column = table.columns[c];
      const std::string label = (column.flavor.empty() ? "" : column.flavor + " ") + column.title;
      r.add_number(column.key, column.percent ? label + " (%)" : label, row.values[c], column.quantity());
    }
    list.records.push_back(std::move(r));
  }
  return {view, table.title, {std::move(list)}, {}};
}

}  // namespace lumen::analysis
