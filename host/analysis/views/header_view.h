// er_print -header: what each experiment is (target, host, plan, comments,
// how it ended, what the collector reported).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "experiment.h"
#include "document.h"

namespace lumen::analysis {

// Plugin options are shown as their kind reads (a duration with its unit,
// a switch as on or off) where `plugins` has the plugin's manifest.
Document header_view(const std::vector<std::unique_ptr<Experiment>>& experiments, const AnalysisPlugins& plugins);

// How the experiment's process ended, in a few words: "exit 0", "killed
// by SIGTERM", "replaced by exec (_x1)", "not recorded".
std::string ending_text(const Experiment& e);

// A recorded option value as people read it: "10.000 ms", "on".
std::string readable_option(const host::OptionSpec* spec, const std::string& value);

}  // namespace lumen::analysis
