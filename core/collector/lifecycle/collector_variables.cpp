#include "lifecycle/collector_variables.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "processes/job_founder_here.h"

namespace lumen::collector {

namespace {

std::string take(const char* name, bool* found) {
  const char* value = std::getenv(name);
  if (value == nullptr) return {};
  *found = true;
  std::string copy = value;
  unsetenv(name);
  return copy;
}

// A rank of a job whose launcher forwarded LUMEN_MPI_JOB: `_rankN` in the
// founder (founded here, if it is not, from what collect forwarded), or,
// where a rank of that number already recorded (a second job of one
// collection), `_pPID_rankN`.
void join_job_as_rank(CollectorVariables& v) {
  const char* job = std::getenv("LUMEN_MPI_JOB");
  const std::string rank = rank_in_environment();
  if (job == nullptr || *job != '/' || rank.empty() || !job_founder_here(job)) return;
  v.experiment = job;
  v.target_pid = "any";
  v.lineage = "_rank" + rank;
  struct stat existing;
  if (stat((v.experiment + "/" + v.lineage + ".er").c_str(), &existing) == 0)
    v.lineage = "_p" + std::to_string(getpid()) + v.lineage;
  v.present = true;
}

}  // namespace

std::string rank_in_environment() {
  for (const char* name : kRankVariables) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0' && std::strspn(value, "0123456789") == std::strlen(value)) return value;
  }
  return "";
}

CollectorVariables& collector_variables() {
  static auto* variables = new CollectorVariables;  // never destroyed: forked children and exit paths read it
  return *variables;
}

void take_collector_variables() {
  CollectorVariables& v = collector_variables();
  bool experiment = false, target = false, lineage = false;
  v.experiment = take("LUMEN_EXPERIMENT", &experiment);
  v.target_pid = take("LUMEN_TARGET_PID", &target);
  v.lineage = take("LUMEN_LINEAGE", &lineage);
  v.present = experiment && target;
  if (!experiment && !target && !lineage) join_job_as_rank(v);
  // A rank forwards nothing to processes of its own: one it starts after
  // its collection ended must not join the job as a rank.
  if (!rank_in_environment().empty())
    for (const char* name : {"LUMEN_MPI_JOB", "LUMEN_MPI_JOB_KEY", "LUMEN_MPI_PLAN"}) unsetenv(name);
  if (const char* preload = std::getenv("LD_PRELOAD")) v.preload = preload;
}

}  // namespace lumen::collector
