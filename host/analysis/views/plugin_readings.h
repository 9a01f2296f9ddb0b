// What plugins read of their records and asked the session to keep
// (lumen_view_host.kept): each object under its plugin's key until the
// selection, view mode or names change, so that a plugin's views read its
// records once between them. Owns the objects and frees each with the
// release function its plugin gave.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace lumen::analysis {

class Experiment;

class PluginReadings {
 public:
  PluginReadings() = default;
  PluginReadings(const PluginReadings&) = delete;
  PluginReadings& operator=(const PluginReadings&) = delete;
  ~PluginReadings() { forget(); }

  // An object, and the experiment whose records its reading visited last
  // (what a row's stack id then resolves in, as after the reading itself).
  struct Found {
    void* object;
    const Experiment* last_experiment;
    size_t last_experiment_index;
  };
  // The object kept under `plugin`'s `key`, if any.
  std::optional<Found> find(const std::string& plugin, const std::string& key) const;
  void keep(const std::string& plugin, const std::string& key, void* object, void (*release)(void*),
            const Experiment* last_experiment = nullptr, size_t last_experiment_index = 0);
  // Frees every object kept (what they were read under changed).
  void forget();

 private:
  struct Kept {
    Found found;
    void (*release)(void*);
  };
  std::map<std::string, Kept> kept_;  // by plugin, a newline, and key
};

}  // namespace lumen::analysis
