#include "session_lists.h"

#include "experiment_hosts.h"
#include "header_view.h"

namespace lumen::analysis {

Document experiment_list(const std::vector<std::unique_ptr<Experiment>>& experiments) {
  RecordList list{"experiments", "", "", RecordLayout::Columns, {}};
  for (size_t i = 0; i < experiments.size(); ++i) {
    const Experiment& e = *experiments[i];
    const std::string command = e.command_text();
    Record r;
    r.add_number("id", "ID", static_cast<double>(i + 1));
    r.add_number("pid", "PID", e.header()["target_pid"].as<std::string>(""));
    r.add("lineage", "Lineage", e.header()["lineage"].as<std::string>(""));
    r.fields.back().text_form = r.fields.back().text.empty() ? "(founder)" : "";
    r.add("path", "Experiment", e.path().string());
    r.add("ending", "Ending", e.header()["job"] ? "" : ending_text(e));
    r.add("command", "Command", command);
    list.records.push_back(std::move(r));
  }
  return {"exp_list", "", {std::move(list)}, {}};
}

Document host_list(const std::vector<std::unique_ptr<Experiment>>& experiments) {
  const ExperimentHosts hosts = experiment_hosts(experiments);
  RecordList list{"hosts", "", "", RecordLayout::Columns, {}};
  for (size_t h = 0; h < hosts.names.size(); ++h) {
    std::string ranks;
    int64_t count = 0;
    for (size_t e = 0; e < experiments.size(); ++e) {
      if (hosts.of_experiment[e] != static_cast<int64_t>(h + 1)) continue;
      ++count;
      if (const YAML::Node rank = experiments[e]->header()["rank"]; rank && rank.IsScalar())
        ranks += (ranks.empty() ? "" : ",") + rank.as<std::string>();
    }
    Record r;
    r.add_number("id", "ID", static_cast<double>(h + 1));
    r.add("host", "Host", hosts.names[h]);
    r.add_number("experiments", "Experiments", static_cast<double>(count));
    r.add("ranks", "MPI ranks", ranks);
    list.records.push_back(std::move(r));
  }
  return {"host_list", "Hosts the experiments were recorded on:", {std::move(list)}, {}};
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
