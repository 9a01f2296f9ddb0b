#include "raised_priority.h"

#include <errno.h>
#include <sys/resource.h>

namespace lumen::attach {

namespace {

// As high as a nice value goes: among the program's threads, all at 0 and
// all runnable during a roll call, collect's thread then waits least.
constexpr int kRaised = -20;

}  // namespace

RaisedPriority::RaisedPriority(const std::set<pid_t>& tids) {
  for (const pid_t tid : tids) {
    errno = 0;
    const int before = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
    if (before == -1 && errno != 0) continue;  // gone
    if (before != kRaised && setpriority(PRIO_PROCESS, static_cast<id_t>(tid), kRaised) == 0)
      raised_.emplace_back(tid, before);
  }
}

RaisedPriority::~RaisedPriority() {
  for (const auto& [tid, before] : raised_) setpriority(PRIO_PROCESS, static_cast<id_t>(tid), before);
}

}  // namespace lumen::attach
