#include "experiment_hosts.h"

#include <algorithm>

namespace lumen::analysis {

ExperimentHosts experiment_hosts(const std::vector<std::unique_ptr<Experiment>>& experiments) {
  ExperimentHosts hosts;
  std::vector<std::string> named;
  for (const auto& e : experiments) {
    const YAML::Node host = e->header()["host"];
    named.push_back(host && host.IsScalar() ? host.as<std::string>() : "");
  }
  hosts.names = named;
  hosts.names.erase(std::remove(hosts.names.begin(), hosts.names.end(), ""), hosts.names.end());
  std::sort(hosts.names.begin(), hosts.names.end());
  hosts.names.erase(std::unique(hosts.names.begin(), hosts.names.end()), hosts.names.end());
  for (const std::string& name : named) {
    const auto at = std::lower_bound(hosts.names.begin(), hosts.names.end(), name);
    hosts.of_experiment.push_back(!name.empty() && at != hosts.names.end() && *at == name
                                      ? static_cast<int64_t>(at - hosts.names.begin() + 1)
                                      : 0);
  }
  return hosts;
}

}  // namespace lumen::analysis
