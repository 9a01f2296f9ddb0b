// Plugins a target turns on by what it is. A plugin directory may hold a
// `turned-on-by` file naming library sonames, one a line ('#' comments):
// a target that needs one of them (DT_NEEDED: the `java` launcher needs
// libjli.so) is collected with that plugin, as if its flag had been given
// "on", unless the command line gave that flag already ("-j off").
#pragma once

#include <map>
#include <string>

#include "command_line.h"
#include "plan_resolution.h"

namespace lumen::collect {

void turn_on_plugins_for_target(CollectRequest& request, const std::map<std::string, InstalledPlugin>& installed,
                                const std::string& program);

}  // namespace lumen::collect
