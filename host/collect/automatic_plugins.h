// A plugin may ask to be planned by itself for programs that need a given
// library, when the plugins it works with are planned (the OpenMP plugin:
// for a program that needs an OpenMP runtime, when clock profiling is on,
// as Oracle's collect did). Its directory then holds a file "automatic":
//   needs SONAME...   the program (or a program named on its command line,
//                     as in `mpirun -np 4 ./app`) needs one of these
//   with PLUGIN...    every one of these is in the plan
// (a rule with no "needs" line applies to every program). The plugin is
// then planned with its default options, except that an option named like
// one of a "with" plugin's takes that plugin's value (the states plugin's
// interval is clock profiling's), unless the command line turned it off
// with its flag ("-omp off", "-states off").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "command_line.h"
#include "plan_resolution.h"

namespace lumen::collect {

// Adds to `plan` the installed plugins whose "automatic" file asks for it
// for this target; `needed` are the libraries it needs
// (target_needed_libraries). Returns their names.
std::vector<std::string> add_automatic_plugins(CollectionPlan& plan, const std::vector<std::string>& needed,
                                               const CollectRequest& request,
                                               const std::map<std::string, InstalledPlugin>& installed);

}  // namespace lumen::collect
