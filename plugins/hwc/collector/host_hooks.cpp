// What the hwc plugin does in collect, before the target starts: counters
// this machine cannot count are left out, combinations the PMU cannot
// schedule and intervals below their floor refused, and collect -h alone
// lists the counters.
#include "host_hooks.h"

#include <cstdio>

#include "counter_listing.h"
#include "interval_floor.h"

namespace lumen::hwc {

std::string resolve_counters(const lumen_option_value* options, size_t count, std::vector<EncodedCounter>* encoded) {
  std::vector<CounterRequest> requests;
  std::string problem = parse_counter_list(lumen_option(options, count, "counters", ""), &requests);
  if (!problem.empty()) return problem;
  encoded->resize(requests.size());
  for (size_t i = 0; i < requests.size() && problem.empty(); ++i) problem = encode_counter(requests[i], &(*encoded)[i]);
  return problem;
}

namespace {

// Counters this machine cannot count (no PMU, a PMU without that event, a
// paranoid kernel) are left out with the kernel's reason; the others stay.
// A list that does not parse or names an unknown counter is check's to
// refuse.
int leave_out(const lumen_option_value* options, size_t count,
              void (*set_option)(void* context, const char* name, const char* value),
              void (*left_out)(void* context, const char* what, const char* reason), void* context) {
  std::vector<EncodedCounter> counters;
  if (!resolve_counters(options, count, &counters).empty()) return 0;
  std::string kept;
  bool narrowed = false;
  for (const EncodedCounter& c : counters) {
    if (const std::string obstacle = counter_obstacle(c); !obstacle.empty()) {
      left_out(context, c.name.c_str(), obstacle.c_str());
      narrowed = true;
      continue;
    }
    kept += (kept.empty() ? "" : ",") + c.name + "," + std::to_string(c.interval);
  }
  if (kept.empty()) return 1;
  if (narrowed) set_option(context, "counters", kept.c_str());
  return 0;
}

int check(const lumen_option_value* options, size_t count, char* error, size_t error_size) {
  std::vector<EncodedCounter> counters;
  std::string problem = resolve_counters(options, count, &counters);
  for (size_t i = 0; i < counters.size() && problem.empty(); ++i) problem = interval_obstacle(counters[i]);
  for (size_t i = 0; i < counters.size() && problem.empty(); ++i) problem = counter_obstacle(counters[i]);
  if (problem.empty()) problem = combination_obstacle(counters);
  if (problem.empty()) return 0;
  std::snprintf(error, error_size, "%s", problem.c_str());
  return 1;
}

void describe_values(void (*line)(void*, const char*), void* context) { list_counters(line, context); }

}  // namespace

const lumen_collector_hooks kHostHooks = {
    .size = sizeof(lumen_collector_hooks), .check = check, .describe_values = describe_values, .leave_out = leave_out};

}  // namespace lumen::hwc
