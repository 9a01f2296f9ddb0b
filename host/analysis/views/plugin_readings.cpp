#include "plugin_readings.h"

namespace lumen::analysis {

namespace {

std::string name_of(const std::string& plugin, const std::string& key) { return plugin + '\n' + key; }

}  // namespace

std::optional<PluginReadings::Found> PluginReadings::find(const std::string& plugin, const std::string& key) const {
  const auto it = kept_.find(name_of(plugin, key));
  if (it == kept_.end()) return std::nullopt;
  return it->second.found;
}

void PluginReadings::keep(const std::string& plugin, const std::string& key, void* object, void (*release)(void*),
                          const Experiment* last_experiment, size_t last_experiment_index) {
  const Kept kept{{object, last_experiment, last_experiment_index}, release};
  auto [it, inserted] = kept_.try_emplace(name_of(plugin, key), kept);
  if (inserted) return;
  if (it->second.release != nullptr) it->second.release(it->second.found.object);
  it->second = kept;
}

void PluginReadings::forget() {
  for (auto& [name, kept] : kept_)
    if (kept.release != nullptr) kept.release(kept.found.object);
  kept_.clear();
}

}  // namespace lumen::analysis
