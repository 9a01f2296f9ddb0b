// The er_print commands the analyzer runs for its page: views that only
// read the experiments, and the plugins' views. Commands that write files
// (outfile, export, archive), open paths (open_exp, add_exp, script) or
// change where sources are read from are not among them; the page's
// settings (metrics, sort, view mode, filters, compare, threads) come as
// parameters of each request (page_settings.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "command_table.h"

namespace lumen::analyzer {

// The command `words` names with its arguments checked against it, or
// throws er_print::CommandError saying why it is not offered.
er_print::Command offered_view(const std::vector<std::string>& words, const analysis::AnalysisPlugins& plugins);

// The plugins' views the page has a tab for: those of plugins whose data an
// open experiment holds, each once, in plugin order.
struct PluginView {
  std::string command;
  std::string plugin;
  std::string help;
};
std::vector<PluginView> plugin_views_with_data(er_print::Session& session);

}  // namespace lumen::analyzer
