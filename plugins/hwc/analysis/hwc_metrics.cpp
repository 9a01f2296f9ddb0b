#include "hwc_metrics.h"

#include "../counter_catalog.h"
#include "../hwc_record.h"

namespace lumen::hwc {

namespace {

// A metric keyword is one word of a -metrics list ("e.cycles:i.insts"): raw
// PMU names ("INST_RETIRED:ANY_P", "msr/tsc/") keep their letters, not the
// separators.
std::string keyword_of(const std::string& name) {
  std::string keyword = name;
  if (keyword.size() > 1 && keyword.back() == '/') keyword.pop_back();
  for (char& c : keyword)
    if (c == ':' || c == '.' || c == '/' || c == ',' || c == ' ') c = '_';
  return keyword;
}

// The count metric of the first counter with `flag`, or -1.
int first_counter_with(const std::vector<CounterRequest>& requests, uint32_t flag, const CounterMetrics& metrics) {
  for (size_t i = 0; i < requests.size(); ++i)
    if (const NamedCounter* named = find_named_counter(requests[i].name); named != nullptr && (named->flags & flag) != 0)
      return metrics.count_metric[i];
  return -1;
}

}  // namespace

std::string counter_metrics(const std::string& counters_option, double clock_mhz, CounterMetrics* out) {
  std::vector<CounterRequest> requests;
  if (std::string problem = parse_counter_list(counters_option, &requests); !problem.empty()) return problem;
  *out = CounterMetrics{};
  out->clock_mhz = clock_mhz;
  auto add = [&](const std::string& keyword, const std::string& title, lumen_metric_unit unit,
                 const std::string& description) {
    out->keywords.push_back(keyword);
    out->titles.push_back(title);
    out->descriptions.push_back(description);
    out->metrics.push_back({nullptr, nullptr, unit,
                            LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED, nullptr, 0, 0});
    return static_cast<int>(out->metrics.size() - 1);
  };
  for (const CounterRequest& r : requests) {
    const NamedCounter* named = find_named_counter(r.name);
    const std::string title = named != nullptr ? named->title : r.name;
    const bool time = named != nullptr && (named->flags & kCountsNanoseconds) != 0;
    out->count_metric.push_back(add(keyword_of(r.name), title, time ? LUMEN_UNIT_NANOSECONDS : LUMEN_UNIT_COUNT,
                                    title + " (" + (named != nullptr ? named->units : "events") +
                                        "), one profile packet every " + std::to_string(r.interval)));
    const bool cycles = named != nullptr && (named->flags & kCountsCycles) != 0;
    out->time_metric.push_back(cycles && clock_mhz > 0
                                   ? add(keyword_of(r.name) + "_time", title + " Time", LUMEN_UNIT_NANOSECONDS,
                                         title + " as time at the recorded clock rate of " +
                                             std::to_string(static_cast<long long>(clock_mhz)) + " MHz")
                                   : -1);
  }
  if (out->metrics.size() > kMaxMetrics)
    return "the counters '" + counters_option + "' need " + std::to_string(out->metrics.size()) +
           " metrics, more than the " + std::to_string(kMaxMetrics) + " a counter list can have";
  for (size_t i = 0; i < out->metrics.size(); ++i) {
    out->metrics[i].keyword = out->keywords[i].c_str();
    out->metrics[i].title = out->titles[i].c_str();
    out->metrics[i].description = out->descriptions[i].c_str();
  }
  const int cycles = first_counter_with(requests, kCountsCycles, *out);
  const int instructions = first_counter_with(requests, kCountsInstructions, *out);
  if (cycles >= 0 && instructions >= 0) {
    const char* c = out->metrics[cycles].keyword;
    const char* i = out->metrics[instructions].keyword;
    out->derived.push_back({"CPI", "CPI", c, i, "Cycles per instruction: the cycle count over the instruction count"});
    out->derived.push_back({"IPC", "IPC", i, c, "Instructions per cycle: the instruction count over the cycle count"});
  }
  return "";
}

}  // namespace lumen::hwc
