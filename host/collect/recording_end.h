// What collect does to an experiment once its process is done with it
// (ended, or detached from): name the kernel's frames while this boot's
// kernel is the one that ran it, and archive the load objects (-A).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "experiment_metadata.h"

namespace lumen::collect {

// Whether any process's log says the size limit stopped its recording.
bool size_limit_reached(const std::filesystem::path& experiment);

// What the processes' logs say their plugins could not do, each plugin and
// reason once.
struct PluginFailure {
  std::string plugin;
  std::string message;
  // "plugin 'clock' did not collect: ..."
  std::string text() const { return "plugin '" + plugin + "' did not collect: " + message; }
  bool operator==(const PluginFailure&) const = default;
};
std::vector<PluginFailure> plugin_failures(const std::filesystem::path& experiment);

// Also says on standard error which plugins did not collect, unless
// `failures_told` (collect -P tells them once attached).
void finish_recording(const std::filesystem::path& experiment, const metadata::CollectionPlan& plan,
                      bool failures_told = false);

}  // namespace lumen::collect
