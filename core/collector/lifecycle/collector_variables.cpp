#include "lifecycle/collector_variables.h"

#include <cstdlib>

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

}  // namespace

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
  if (const char* preload = std::getenv("LD_PRELOAD")) v.preload = preload;
}

}  // namespace lumen::collector
