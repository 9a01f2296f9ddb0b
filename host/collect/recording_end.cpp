#include "recording_end.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <string>

#include "archive_writer.h"
#include "kernel_frame_names.h"

namespace lumen::collect {

namespace fs = std::filesystem;
using metadata::ArchiveMode;
using metadata::CollectionPlan;
using metadata::PlannedPlugin;

namespace {

bool records_kernel_frames(const CollectionPlan& plan) {
  for (const PlannedPlugin& p : plan.plugins)
    for (const auto& [option, value] : p.options)
      if (p.name == "clock" && option == "kernel_frames" && value == "1") return true;
  return false;
}

// The kernel functions in the stacks, named while this boot's kernel is
// the one that ran the target.
void name_kernel_frames(const fs::path& experiment) {
  try {
    if (!kernel::name_kernel_frames(experiment))
      std::cerr << "collect: the kernel's frames are left unnamed: /proc/kallsyms shows no addresses to this user "
                   "(kernel.kptr_restrict)\n";
  } catch (const std::exception& e) {
    std::cerr << "collect: the kernel's frames are left unnamed: " << e.what() << "\n";
  }
}

// -A: what analysis needs of the load objects once the target is done, a
// copy of each (on and copy alike), so a rebuilt program is still named by
// the code that ran.
void archive_experiment(const fs::path& experiment, ArchiveMode mode) {
  if (mode != ArchiveMode::off) lumen::archive::archive_after_recording(experiment, "collect", std::cerr);
}

}  // namespace

bool size_limit_reached(const fs::path& experiment) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(experiment, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().filename() != metadata::kLogFile) continue;
    std::ifstream log(it->path());
    std::string line;
    while (std::getline(log, line))
      if (line.find("event: " + std::string(metadata::log_event::kSizeLimitReached)) != std::string::npos) return true;
  }
  return false;
}

std::vector<PluginFailure> plugin_failures(const fs::path& experiment) {
  std::vector<PluginFailure> failures;
  const std::string marker = "event: " + std::string(metadata::log_event::kPluginFailed);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(experiment, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().filename() != metadata::kLogFile) continue;
    std::ifstream log(it->path());
    for (std::string line; std::getline(log, line);) {
      if (line.find(marker) == std::string::npos) continue;
      try {
        const YAML::Node entry = YAML::Load(line.substr(line.find('{')));
        const PluginFailure failure{entry["plugin"].as<std::string>("?"), entry["message"].as<std::string>("")};
        if (std::find(failures.begin(), failures.end(), failure) == failures.end()) failures.push_back(failure);
      } catch (const YAML::Exception&) {
        // A line cut short by a crash: er_print says where the log ends.
      }
    }
  }
  return failures;
}

void finish_recording(const fs::path& experiment, const CollectionPlan& plan, bool failures_told) {
  if (!failures_told)
    for (const PluginFailure& failure : plugin_failures(experiment))
      std::cerr << "collect: warning: " << failure.text() << "\n";
  if (records_kernel_frames(plan)) name_kernel_frames(experiment);
  archive_experiment(experiment, plan.runtime.archive);
}

}  // namespace lumen::collect
