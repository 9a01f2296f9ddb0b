// collect [options] program [args]: runs a program and records an
// experiment. The whole command; main only hands it the arguments.
#pragma once

#include <string>
#include <vector>

namespace lumen::collect {

// Returns collect's exit status (the target's, 2 for a usage error); ends
// the process itself the way the target ended when it was killed.
int run_collect(const std::vector<std::string>& args);

}  // namespace lumen::collect
