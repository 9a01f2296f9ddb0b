// While collect holds a process stopped (its attach and its detach), the
// work that ends the pause runs first: collect's own thread is raised
// above the program's (whose begins and ends compete with it for the
// CPUs), and put back as it was at the end. Raising the collector's /proc
// reader too was not quicker. Raising takes root or CAP_SYS_NICE; without
// it nothing changes.
#pragma once

#include <sys/types.h>

#include <set>
#include <utility>
#include <vector>

namespace lumen::attach {

class RaisedPriority {
 public:
  // `tids`: threads of any process (0: the calling thread).
  explicit RaisedPriority(const std::set<pid_t>& tids);
  ~RaisedPriority();  // each raised thread's nice value put back
  RaisedPriority(const RaisedPriority&) = delete;
  RaisedPriority& operator=(const RaisedPriority&) = delete;

 private:
  std::vector<std::pair<pid_t, int>> raised_;  // tid, its nice value before
};

}  // namespace lumen::attach
