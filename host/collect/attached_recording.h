// collect -P PID: recording a process that already runs. The collector is
// loaded into it (host/attach), each thread's collection begun, and at
// the end of -t, at SIGINT, SIGTERM or SIGHUP to collect, taken out again:
// the process runs on as before. When the process ends first, collect
// finishes the experiment.
#pragma once

#include <map>
#include <string>

#include "command_line.h"
#include "plan_resolution.h"

namespace lumen::collect {

// Returns collect's exit status. Throws UsageError for a refusal (the
// process is gone, not ours to trace, statically linked; a data type that
// needs the program's calls from its start).
int record_attached(const CollectRequest& request, CollectionPlan plan,
                    const std::map<std::string, InstalledPlugin>& installed);

}  // namespace lumen::collect
