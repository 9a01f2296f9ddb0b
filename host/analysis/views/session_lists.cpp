#include "session_lists.h"

namespace lumen::analysis {

Document experiment_list(const std::vector<std::unique_ptr<Experiment>>& experiments) {
  RecordList list{"experiments", "", "", RecordLayout::Columns, {}};
  for (size_t i = 0; i < experiments.size(); ++i) {
    const Experiment& e = *experiments[i];
    std::string command;
    if (const YAML::Node words = e.header()["command"]; words && words.IsSequence())
      for (const auto& word : words) command += (command.empty() ? "" : " ") + word.as<std::string>();
    Record r;
    r.add_number("id", "ID", static_cast<double>(i + 1));
    r.add_number("pid", "PID", e.header()["target_pid"].as<std::string>(""));
    r.add("lineage", "Lineage", e.header()["lineage"].as<std::string>(""));
    r.fields.back().text_form = r.fields.back().text.empty() ? "(founder)" : "";
    r.add("path", "Experiment", e.path().string());
    r.add("command", "Command", command);
    list.records.push_back(std::move(r));
  }
  return {"exp_list", "", {std::move(list)}, {}};
}

Document metric_list(const MetricRegistry& registry) {
  RecordList list{"metrics", "", "", RecordLayout::Columns, {}};
  for (const MetricDef& m : registry.metrics()) {
    Record r;
    r.add("keyword", "Keyword", m.keyword);
    r.add("title", "Title", m.title);
    r.add("unit", "Unit", unit_word(m.unit));
    r.add("flavors", "Flavors",
          std::string((m.flavors & LUMEN_FLAVOR_EXCLUSIVE) ? "e" : "") + ((m.flavors & LUMEN_FLAVOR_INCLUSIVE) ? "i" : "") +
              ((m.flavors & LUMEN_FLAVOR_ATTRIBUTED) ? "a" : ""));
    list.records.push_back(std::move(r));
  }
  return {"metric_list", "Available metrics:", {std::move(list)}, {}};
}

}  // namespace lumen::analysis
