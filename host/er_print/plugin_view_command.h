// A view that plugins add to er_print (lumen_view_def), as a command.
//
// Several plugins may define a view of one name, each about data of its
// own: -allocs and -leaks are the native heap plugin's (traced malloc) and
// the Java plugin's (objects the JVM sampled). The command is served by
// every plugin defining it whose data file an open experiment holds, in
// plugin-name order; one such plugin shows its view as it always did, and
// several show one section each, titled by the data it reads (a JVM traced
// with -H on and sampled with -j heap). When no open experiment holds any
// of their data, the first plugin's view runs and er_print says that it is
// empty for that reason. Only the analysis halves of the plugins that
// serve are opened.
#pragma once

#include <optional>
#include <string>

#include "command_table.h"

namespace lumen::er_print {

// The command running the plugins' view `name`; nullopt when no installed
// plugin defines it.
std::optional<Command> plugin_view_command(const std::string& name, const analysis::AnalysisPlugins& plugins);

}  // namespace lumen::er_print
