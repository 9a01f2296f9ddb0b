#include "counter_catalog.h"

#include <linux/perf_event.h>

#include "hwc_record.h"

#include <cerrno>
#include <cstdlib>

namespace lumen::hwc {

namespace {

constexpr uint64_t cache_event(uint64_t cache, uint64_t op, uint64_t result) {
  return cache | (op << 8) | (result << 16);
}

// No generic perf event counts L2 misses: the PMU's own names, in turn.
const char* const kL2MissNames[] = {"L2_RQSTS:MISS", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C",
                                    "L2_CACHE_REQ_STAT:LS_RD_BLK_C", nullptr};

// Default intervals are primes near a rate of a few hundred overflows a
// second on a 3 GHz core (hardware) or a reasonable sampling rate (software).
const std::vector<NamedCounter> kNamedCounters = {
    {"cycles", "CPU Cycles", "PERF_COUNT_HW_CPU_CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, nullptr,
     10000019, "CPU-cycles", kHardware | kCountsCycles},
    {"insts", "Instructions Executed", "PERF_COUNT_HW_INSTRUCTIONS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
     nullptr, 10000019, "events", kHardware | kCountsInstructions},
    {"loads", "Load Instructions", "PERF_COUNT_HW_CACHE_L1D:READ:ACCESS", PERF_TYPE_HW_CACHE,
     cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS), nullptr,
     1000003, "load-store events", kHardware},
    {"stores", "Store Instructions", "PERF_COUNT_HW_CACHE_L1D:WRITE:ACCESS", PERF_TYPE_HW_CACHE,
     cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS), nullptr,
     1000003, "load-store events", kHardware},
    {"dcm", "L1 D-cache Misses", "PERF_COUNT_HW_CACHE_L1D:READ:MISS", PERF_TYPE_HW_CACHE,
     cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), nullptr,
     100003, "load-store events", kHardware},
    {"icm", "L1 I-cache Misses", "PERF_COUNT_HW_CACHE_L1I:READ:MISS", PERF_TYPE_HW_CACHE,
     cache_event(PERF_COUNT_HW_CACHE_L1I, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), nullptr,
     100003, "events", kHardware},
    {"l2m", "L2 Cache Misses", "the PMU's L2 miss event", UINT32_MAX, 0, kL2MissNames, 10007, "load-store events",
     kHardware},
    {"l3m", "Last-Level Cache Misses", "PERF_COUNT_HW_CACHE_LL:READ:MISS", PERF_TYPE_HW_CACHE,
     cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), nullptr,
     10007, "load-store events", kHardware},
    {"brm", "Branch Mispredictions", "PERF_COUNT_HW_BRANCH_MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
     nullptr, 100003, "events", kHardware},
    {"branches", "Branch Instructions", "PERF_COUNT_HW_BRANCH_INSTRUCTIONS", PERF_TYPE_HARDWARE,
     PERF_COUNT_HW_BRANCH_INSTRUCTIONS, nullptr, 1000003, "events", kHardware},
    {"task-clock", "Task Clock", "PERF_COUNT_SW_TASK_CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, nullptr,
     10000000, "nanoseconds", kCountsNanoseconds},
    {"page-faults", "Page Faults", "PERF_COUNT_SW_PAGE_FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, nullptr,
     1009, "events", 0},
    {"minor-faults", "Minor Page Faults", "PERF_COUNT_SW_PAGE_FAULTS_MIN", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_PAGE_FAULTS_MIN, nullptr, 1009, "events", 0},
    {"major-faults", "Major Page Faults", "PERF_COUNT_SW_PAGE_FAULTS_MAJ", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_PAGE_FAULTS_MAJ, nullptr, 11, "events", 0},
    {"context-switches", "Context Switches", "PERF_COUNT_SW_CONTEXT_SWITCHES", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CONTEXT_SWITCHES, nullptr, 101, "events", kCountedInKernel},
    {"cpu-migrations", "CPU Migrations", "PERF_COUNT_SW_CPU_MIGRATIONS", PERF_TYPE_SOFTWARE,
     PERF_COUNT_SW_CPU_MIGRATIONS, nullptr, 11, "events", kCountedInKernel},
};

bool is_interval_word(const std::string& word) {
  if (word == "on" || word == "hi" || word == "lo") return true;
  return !word.empty() && word.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

const std::vector<NamedCounter>& named_counters() { return kNamedCounters; }

const NamedCounter* find_named_counter(const std::string& name) {
  for (const NamedCounter& c : kNamedCounters)
    if (name == c.name) return &c;
  return nullptr;
}

bool split_pmu_event_name(const std::string& name, std::string* pmu, std::string* event) {
  const size_t first = name.find('/');
  if (first == 0 || first == std::string::npos || name.size() < first + 3 || name.back() != '/') return false;
  const std::string middle = name.substr(first + 1, name.size() - first - 2);
  if (middle.find('/') != std::string::npos) return false;
  if (pmu != nullptr) *pmu = name.substr(0, first);
  if (event != nullptr) *event = middle;
  return true;
}

uint64_t default_interval_of(const std::string& name) {
  const NamedCounter* named = find_named_counter(name);
  return named != nullptr ? named->default_interval : kRawDefaultInterval;
}

std::string parse_counter_list(const std::string& text, std::vector<CounterRequest>* counters) {
  counters->clear();
  std::vector<std::string> words;
  size_t begin = 0;
  for (;;) {
    const size_t comma = text.find(',', begin);
    words.push_back(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  for (size_t i = 0; i < words.size(); ++i) {
    std::string name = words[i];
    if (name.empty()) return "an empty counter name in '" + text + "'";
    if (is_interval_word(name)) return "'" + name + "' is an interval, but no counter precedes it in '" + text + "'";
    const size_t slash = name.find('/');
    if (slash != std::string::npos && !split_pmu_event_name(name, nullptr, nullptr)) {
      const std::string reg = name.substr(slash + 1);
      if (reg.empty() || reg.find_first_not_of("0123456789") != std::string::npos)
        return "'" + name + "': a register suffix is /NUMBER";
      name.resize(slash);
    }
    CounterRequest request{name, default_interval_of(name)};
    if (i + 1 < words.size() && is_interval_word(words[i + 1])) {
      const std::string& interval = words[++i];
      if (interval == "hi") request.interval = request.interval / 10 > 0 ? request.interval / 10 : 1;
      else if (interval == "lo") request.interval *= 10;
      else if (interval != "on") {
        errno = 0;
        const unsigned long long value = std::strtoull(interval.c_str(), nullptr, 10);
        if (errno != 0 || value == 0) return "the interval '" + interval + "' of " + name + " is not a positive number";
        request.interval = value;
      }
    }
    for (const CounterRequest& earlier : *counters)
      if (earlier.name == name) return "the counter " + name + " is named twice in '" + text + "'";
    counters->push_back(request);
  }
  if (counters->size() > kMaxCounters)
    return "at most " + std::to_string(kMaxCounters) + " counters at once, not " +
           std::to_string(counters->size());
  return "";
}

}  // namespace lumen::hwc
