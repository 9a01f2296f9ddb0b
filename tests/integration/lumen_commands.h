// collect and er_print as a test uses them: record a target's experiment,
// read its truth, and get views back as parsed JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "process_runner.h"

namespace lumen::test {

struct Collection {
  std::filesystem::path experiment;
  nlohmann::json truth;  // what the target measured of itself
  ProcessResult run;
};

// collect -o NAME -d DIR <collect_args> TARGET <target_args>, with the
// target writing its truth into DIR.
Collection collect(const TempDir& dir, const std::vector<std::string>& collect_args, const std::string& target,
                   const std::vector<std::string>& target_args = {});

// TARGET <target_args> from the test targets' directory, without collect:
// what a run under collect is compared with.
ProcessResult run_without_collect(const std::string& target, const std::vector<std::string>& target_args);

// Whether the experiment's collector.log recorded the end of collection.
bool log_has_end(const std::filesystem::path& experiment);

// er_print --format=json <args> EXPERIMENT; fails the test on a non-zero exit.
nlohmann::json er_print_json(const std::vector<std::string>& args, const std::filesystem::path& experiment);

// Rows of a functions-like view by name: name -> {"e.totalcpu": ..., ...}.
std::map<std::string, nlohmann::json> rows_by_name(const nlohmann::json& view);

// What a sampling profiler can honestly promise for `truth` seconds of
// contiguous CPU time sampled every `interval` seconds: a CPU-time timer's
// expiry is noticed on a scheduler tick (4 ms here) while the thread runs,
// so under load the last samples of a region can land a few ticks after it
// ends; allow five quanta and 5 %.
double sampling_tolerance(double truth, double interval);

// The machine's steal time so far (/proc/stat), in seconds: time the
// hypervisor ran something else on a virtual CPU. Wall-clock measures (the
// TSC, task-clock's count and its hrtimer) go on through it; a thread's CPU
// clock, which paravirtual steal accounting keeps it out of, does not.
double machine_steal_seconds();

}  // namespace lumen::test
