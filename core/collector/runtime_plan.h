// The collection plan as collect wrote it for the runtime ("collector.plan"):
// which collector halves to start and their canonical option values. Plain
// lines, so the target needs no YAML library:
//   lumen-plan 1
//   plugin NAME PATH
//   option KEY VALUE          (belongs to the plugin line above it)
//   follow on|off|=REGEX      which descendant processes are collected
//   samples NANOSECONDS       periodic sample points (0: none)
//   sample_signal N           a sample point when the process receives N
//   pause_signal N [paused]   N toggles pause/resume; "paused": start paused
//   window START_NS END_NS    record only in this span after collect started
//                             the target (END_NS 0: until the end)
//   origin_ns N               collect's CLOCK_MONOTONIC when it started the
//                             target: time zero of the window
//   size_limit BYTES          stop recording when the data files reach it
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace lumen::collector {

struct PlannedPlugin {
  std::string name;
  std::string path;
  std::vector<std::pair<std::string, std::string>> options;
};

struct RuntimePlan {
  std::vector<PlannedPlugin> plugins;
  std::string follow = "on";
  long long sample_period_ns = 1'000'000'000;
  int sample_signal = 0;
  int pause_signal = 0;
  bool start_paused = false;
  long long window_start_ns = 0;
  long long window_end_ns = 0;  // 0: no end
  long long origin_ns = 0;
  long long size_limit_bytes = 0;  // 0: unlimited
};

// Not signal-safe. On failure returns false with a reason in `error`.
bool read_runtime_plan(const std::string& path, RuntimePlan& plan, std::string& error);

}  // namespace lumen::collector
