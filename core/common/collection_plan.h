// The collection plan: what collect resolved from a profile and its flags,
// declared once. collect writes it to collector.plan; the runtime in the
// target reads it back, and the header of every process of the experiment
// (the founder's, written by collect, and each descendant's, written by the
// runtime) is made from it (experiment_header.h).
//
// collector.plan is plain lines, "KEYWORD FIELD...", each field
// percent-encoded (space, '%', control characters; "%" alone is empty):
//   lumen-plan 2
//   profile PATH
//   follow on|off|all|=REGEX   which descendant processes are collected
//   samples NANOSECONDS        periodic sample points (0: none)
//   sample_signal N            a sample point when the process receives N
//   pause_signal N [paused]    N toggles pause/resume; "paused": start paused
//   window START_NS END_NS     record only in this span after collect started
//                              the target (END_NS 0: until the end)
//   origin_ns N                collect's CLOCK_MONOTONIC when it started the
//                              target: time zero of the window
//   size_limit BYTES           stop recording when the data files reach it
//   archive on|off|copy        what collect archives of the load objects
//   comment TEXT               collect -C, repeatable
//   plugin NAME VERSION DATA_FILE PATH
//   option KEY VALUE           belongs to the plugin line above it
//   left_out PLUGIN WHAT REASON
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace lumen::metadata {

enum class ArchiveMode { off, on, copy };

// What collect asks of the runtime besides plugins.
struct RuntimeSettings {
  long long sample_period_ns = 1'000'000'000;  // -S; 0: no periodic samples
  int sample_signal = 0;                       // -l; 0: none
  int pause_signal = 0;                        // -y; 0: none
  bool start_paused = false;                   // -y SIGNAL without ",r"
  long long window_start_ns = 0;               // -t START[-END]
  long long window_end_ns = 0;                 // 0: until the end
  long long size_limit_bytes = 0;              // -L; 0: unlimited
  ArchiveMode archive = ArchiveMode::on;       // -A
};

struct PlannedPlugin {
  std::string name;
  std::string version;
  std::string data_file;
  std::filesystem::path collector_path;
  std::vector<std::pair<std::string, std::string>> options;  // canonical values, declaration order
};

// What a plugin left out because this machine cannot do it (a hardware
// counter without a PMU): the target runs without it; the header says why.
struct LeftOut {
  std::string plugin;
  std::string what;
  std::string reason;
};

struct CollectionPlan {
  std::string profile_path;
  std::string follow = "on";  // descendant processes: on, off, all, =REGEX
  std::vector<PlannedPlugin> plugins;
  RuntimeSettings runtime;  // samples, pause signal, window, size limit, archiving
  long long origin_ns = 0;  // CLOCK_MONOTONIC when collect started the target: time zero of -t
  std::vector<std::string> comments;  // -C
  std::vector<LeftOut> left_out;
};

std::string archive_mode_name(ArchiveMode mode);  // "on", "off", "copy"

// Not signal-safe (all of this file).
void write_plan(const CollectionPlan& plan, std::ostream& out);
// On failure returns false with a reason (naming `where` and the line) in `error`.
bool read_plan(std::istream& in, const std::string& where, CollectionPlan& plan, std::string& error);

}  // namespace lumen::metadata
