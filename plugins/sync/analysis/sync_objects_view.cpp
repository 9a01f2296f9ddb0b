// er_print -syncobjects: one row per synchronization object (its kind, its
// address, its symbol when it is a global or static variable; a Java
// monitor: its class) with the wait recorded on it, then for each object
// the stacks that waited on it most.
//
// Objects are told apart by address and kind within one process. Each
// process's data file starts with its settings record (written by start()
// before any wait can be recorded), which is how the records of several
// experiments are kept apart: the view host does not say which experiment a
// record comes from.
#include <lumen/analysis_plugin.h>
#include <lumen/analysis_support.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "../sync_record.h"
#include "sync_analysis.h"

namespace lumen::sync {
namespace {

constexpr size_t kStacksPerObject = 5;

struct StackTotal {
  uint64_t stack_id = LUMEN_NO_STACK;
  int64_t wait_ns = 0;
  int64_t count = 0;
};

struct ObjectTotal {
  uint32_t process = 0;  // ordinal of the process (experiment) it belongs to
  uint64_t address = 0;
  uint16_t kind = 0;
  std::string symbol;  // empty: not a global or static variable
  int64_t wait_ns = 0;
  int64_t count = 0;
  int64_t longest_ns = 0;
  std::unordered_map<uint64_t, StackTotal> stacks;
};

struct Aggregate {
  const lumen_view_host* host = nullptr;
  uint32_t processes = 0;  // settings records seen
  std::map<std::tuple<uint32_t, uint64_t, uint16_t>, ObjectTotal> objects;
  std::vector<SyncSettings> settings;
  int64_t wait_ns = 0;
  int64_t count = 0;
  std::string problem;  // set when a record could not be used
};

void visit_record(void* arg, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* aggregate = static_cast<Aggregate*>(arg);
  if (!aggregate->problem.empty()) return;
  try {
    if (kind == kSettingsRecord && bytes >= sizeof(SyncSettings)) {
      SyncSettings settings;
      std::memcpy(&settings, payload, sizeof settings);
      aggregate->settings.push_back(settings);
      ++aggregate->processes;
      return;
    }
    if (kind != kWaitRecord && kind != kMonitorWaitRecord) return;
    if (bytes < sizeof(SyncWait)) {
      aggregate->problem = "a sync wait record is " + std::to_string(bytes) + " bytes, expected " +
                           std::to_string(sizeof(SyncWait));
      return;
    }
    SyncWait wait;
    std::memcpy(&wait, payload, sizeof wait);
    const int64_t waited = wait.grant_ns >= wait.request_ns ? lumen_value_of(wait.grant_ns - wait.request_ns) : 0;
    const uint32_t process = aggregate->processes == 0 ? 0 : aggregate->processes - 1;
    auto [it, inserted] = aggregate->objects.try_emplace({process, wait.object, wait.object_kind});
    ObjectTotal& object = it->second;
    if (inserted) {
      object.process = process;
      object.address = wait.object;
      object.kind = wait.object_kind;
      // Resolved now, while the host reads this record's experiment; the
      // host's string lives only until its next call.
      if (kind == kMonitorWaitRecord)
        object.symbol.assign(static_cast<const char*>(payload) + sizeof wait, bytes - sizeof wait);  // its class
      else if (const char* symbol = aggregate->host->data_symbol(aggregate->host->context, wait.object))
        object.symbol = symbol;
    }
    object.wait_ns = lumen_saturating_add(object.wait_ns, waited);
    object.count += 1;
    object.longest_ns = std::max(object.longest_ns, waited);
    StackTotal& stack = object.stacks[wait.stack_id];
    stack.stack_id = wait.stack_id;
    stack.wait_ns = lumen_saturating_add(stack.wait_ns, waited);
    stack.count += 1;
    aggregate->wait_ns = lumen_saturating_add(aggregate->wait_ns, waited);
    aggregate->count += 1;
  } catch (const std::exception& e) {
    aggregate->problem = e.what();
  }
}

std::string object_name(const ObjectTotal& object, bool several_processes) {
  char text[96];
  std::snprintf(text, sizeof text, "%s 0x%" PRIx64, object_kind_name(object.kind), object.address);
  // A Java monitor moves with its object: it is named by its class and
  // identity hash code (its symbol), not by an address.
  std::string name = object.kind == static_cast<uint16_t>(ObjectKind::kJavaMonitor) ? object_kind_name(object.kind) : text;
  if (!object.symbol.empty()) name += " " + object.symbol;
  if (several_processes) name = "[" + std::to_string(object.process + 1) + "] " + name;
  return name;
}

template <typename T>
bool heavier(const T& a, const T& b) {
  if (a.wait_ns != b.wait_ns) return a.wait_ns > b.wait_ns;
  return a.count > b.count;
}

void add_summaries(const lumen_view_host* host, const Aggregate& aggregate) {
  auto summary = [&](const char* key, const char* label, double value, lumen_metric_unit unit) {
    host->summary(host->context, key, label, value, unit);
  };
  summary("wait", "Sync Wait Time", static_cast<double>(aggregate.wait_ns), LUMEN_UNIT_NANOSECONDS);
  summary("count", "Sync Wait Count", static_cast<double>(aggregate.count), LUMEN_UNIT_COUNT);
  summary("objects", "Synchronization objects", static_cast<double>(aggregate.objects.size()), LUMEN_UNIT_COUNT);
  if (aggregate.settings.empty()) return;
  uint64_t low = UINT64_MAX, high = 0;
  for (const SyncSettings& s : aggregate.settings) {
    low = std::min(low, s.threshold_ns);
    high = std::max(high, s.threshold_ns);
  }
  if (low == high) {
    summary("threshold_ns", "Threshold (ns)", static_cast<double>(low), LUMEN_UNIT_COUNT);
  } else {
    summary("threshold_ns_min", "Lowest threshold (ns)", static_cast<double>(low), LUMEN_UNIT_COUNT);
    summary("threshold_ns_max", "Highest threshold (ns)", static_cast<double>(high), LUMEN_UNIT_COUNT);
  }
  const SyncSettings& first = aggregate.settings.front();
  summary("calibrated", "Threshold calibrated (1: yes)", (first.flags & kThresholdCalibrated) ? 1.0 : 0.0,
          LUMEN_UNIT_COUNT);
  if (first.flags & kThresholdCalibrated)
    summary("uncontended_pair_ns", "Uncontended lock/unlock pair (ns)",
            static_cast<double>(first.calibration_pair_ps) / 1000.0, LUMEN_UNIT_COUNT);
}

int run(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    // Read once while the selection stays (lumen::kept_records).
    std::unique_ptr<Aggregate> own;
    std::string problem;
    const Aggregate* read = kept_records(host, "objects", visit_record, own, problem);
    if (read == nullptr) {
      std::snprintf(error, error_size, "%s", problem.c_str());
      return 1;
    }
    const Aggregate& aggregate = *read;
    add_summaries(host, aggregate);

    std::vector<const ObjectTotal*> objects;
    for (const auto& [key, object] : aggregate.objects) objects.push_back(&object);
    std::stable_sort(objects.begin(), objects.end(), [](const ObjectTotal* a, const ObjectTotal* b) { return heavier(*a, *b); });
    if (host->row_limit != 0 && objects.size() > host->row_limit) objects.resize(host->row_limit);
    const bool several = aggregate.processes > 1;
    const uint32_t last_process = aggregate.processes == 0 ? 0 : aggregate.processes - 1;

    const lumen_view_column object_columns[] = {
        {"wait", "Sync Wait Time", LUMEN_UNIT_NANOSECONDS},
        {"count", "Sync Wait Count", LUMEN_UNIT_COUNT},
        {"longest", "Longest Wait", LUMEN_UNIT_NANOSECONDS},
    };
    host->table_begin(host->context, "Synchronization objects", object_columns, 3);
    for (const ObjectTotal* object : objects) {
      const double values[] = {static_cast<double>(object->wait_ns), static_cast<double>(object->count),
                               static_cast<double>(object->longest_ns)};
      host->table_row(host->context, object_name(*object, several).c_str(), values, LUMEN_NO_STACK);
    }

    const lumen_view_column stack_columns[] = {
        {"wait", "Sync Wait Time", LUMEN_UNIT_NANOSECONDS},
        {"count", "Sync Wait Count", LUMEN_UNIT_COUNT},
    };
    size_t stacks_shown = kStacksPerObject;
    if (host->row_limit != 0) stacks_shown = std::min(stacks_shown, host->row_limit);
    for (const ObjectTotal* object : objects) {
      std::vector<StackTotal> stacks;
      for (const auto& [id, stack] : object->stacks) stacks.push_back(stack);
      std::sort(stacks.begin(), stacks.end(), [](const StackTotal& a, const StackTotal& b) {
        return heavier(a, b) || (!heavier(b, a) && a.stack_id < b.stack_id);
      });
      const std::string title = "Stacks waiting on " + object_name(*object, several);
      host->table_begin(host->context, title.c_str(), stack_columns, 2);
      const size_t shown = std::min(stacks.size(), stacks_shown);
      for (size_t i = 0; i < shown; ++i) {
        const double values[] = {static_cast<double>(stacks[i].wait_ns), static_cast<double>(stacks[i].count)};
        std::string name = "stack " + std::to_string(i + 1) + " of " + std::to_string(stacks.size());
        // The host resolves stack ids in the last experiment it read; an
        // earlier experiment's stacks are shown when it is opened alone.
        uint64_t stack_id = stacks[i].stack_id;
        if (object->process != last_process) {
          name += " (open experiment " + std::to_string(object->process + 1) + " alone for its frames)";
          stack_id = LUMEN_NO_STACK;
        }
        host->table_row(host->context, name.c_str(), values, stack_id);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

}  // namespace

const lumen_view_def kSyncObjectsView = {
    "syncobjects",
    "synchronization objects (kind, address, variable) by Sync Wait Time, with the stacks that waited on each",
    run,
};

}  // namespace lumen::sync
