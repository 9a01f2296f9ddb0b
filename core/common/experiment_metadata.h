// The names an experiment's metadata files use, declared once for collect,
// the runtime in the target and analysis:
//   header.yaml     what the experiment was and how its process ended
//   collector.plan  what collect asks of the runtime (plain lines, no YAML
//                   in the target; collection_plan.h reads and writes it)
//   collector.log   what the runtime has to say, one YAML flow mapping a line
//   vdso.so         the image of the kernel's vDSO, for its symbols
#pragma once

namespace lumen::metadata {

inline constexpr const char* kHeaderFile = "header.yaml";
inline constexpr const char* kPlanFile = "collector.plan";
inline constexpr const char* kLogFile = "collector.log";
// The kernel's vDSO has no file on disk: the runtime copies its image here,
// and analysis reads the symbols of the object named kVdsoObject from it.
inline constexpr const char* kVdsoImageFile = "vdso.so";
inline constexpr const char* kVdsoObject = "linux-vdso.so.1";

// header.yaml keys.
namespace header {
inline constexpr const char* kFormat = "format";
inline constexpr const char* kCollectorVersion = "collector_version";
inline constexpr const char* kCommand = "command";
inline constexpr const char* kHost = "host";
inline constexpr const char* kCpus = "cpus";
inline constexpr const char* kClockMhz = "clock_mhz";
inline constexpr const char* kPageSize = "page_size";
inline constexpr const char* kStartWallNs = "start_wall_ns";
inline constexpr const char* kStartMonotonicNs = "start_monotonic_ns";
inline constexpr const char* kTargetPid = "target_pid";
inline constexpr const char* kParentPid = "parent_pid";
inline constexpr const char* kComments = "comments";
inline constexpr const char* kProfile = "profile";
inline constexpr const char* kFollow = "follow";
inline constexpr const char* kLineage = "lineage";
inline constexpr const char* kRank = "rank";
inline constexpr const char* kSamplePeriodNs = "sample_period_ns";
inline constexpr const char* kSampleSignal = "sample_signal";
inline constexpr const char* kPauseSignal = "pause_signal";
inline constexpr const char* kStartPaused = "start_paused";
inline constexpr const char* kWindow = "window";  // {start_ns, end_ns}
inline constexpr const char* kSizeLimitBytes = "size_limit_bytes";
inline constexpr const char* kArchive = "archive";
inline constexpr const char* kPlugins = "plugins";  // NAME: {version, data_file, directory, options}
inline constexpr const char* kLeftOut = "left_out";  // [{plugin, what, reason}]
inline constexpr const char* kEndWallNs = "end_wall_ns";
inline constexpr const char* kSizeLimitReached = "size_limit_reached";
// {exit_code} or {signal, signal_name}: how the process ended.
inline constexpr const char* kTargetEnd = "target_end";
// Why collection did not finish its work (collect itself was killed).
inline constexpr const char* kCutShort = "cut_short";
// true: collect -P attached to the process while it ran; the start is the
// attach's.
inline constexpr const char* kAttached = "attached";
// true: collect -P detached at end_wall_ns, the process still running (no
// target_end).
inline constexpr const char* kDetached = "detached";
// {time_ns}: er_kernel or collect -P saw the process exit (from outside:
// not its status).
inline constexpr const char* kExitSeen = "exit_seen";
}  // namespace header

// collector.plan keywords, one a line: "KEYWORD FIELD...".
namespace plan {
inline constexpr const char* kMagic = "lumen-plan";
inline constexpr int kVersion = 2;
inline constexpr const char* kProfile = "profile";
inline constexpr const char* kFollow = "follow";
inline constexpr const char* kSamples = "samples";
inline constexpr const char* kSampleSignal = "sample_signal";
inline constexpr const char* kPauseSignal = "pause_signal";
inline constexpr const char* kWindow = "window";
inline constexpr const char* kOrigin = "origin_ns";
inline constexpr const char* kSizeLimit = "size_limit";
inline constexpr const char* kArchive = "archive";
inline constexpr const char* kComment = "comment";
inline constexpr const char* kPlugin = "plugin";
inline constexpr const char* kOption = "option";
inline constexpr const char* kLeftOut = "left_out";
}  // namespace plan

// collector.log event names ("event: NAME").
namespace log_event {
inline constexpr const char* kStart = "start";
inline constexpr const char* kEnd = "end";
inline constexpr const char* kError = "error";
inline constexpr const char* kExec = "exec";
inline constexpr const char* kNote = "note";
inline constexpr const char* kPluginStarted = "plugin_started";
inline constexpr const char* kPluginFailed = "plugin_failed";
inline constexpr const char* kSizeLimitReached = "size_limit_reached";
// A data file write the runtime could not make (file: NAME, error: its
// strerror text): the records it held, and later ones, are dropped.
inline constexpr const char* kWriteFailed = "write_failed";
inline constexpr const char* kDataFileCreated = "data_file_created";  // name: a plugin's data file, as it opened it
// A thread of the collector's own (tid: N): its data blocks hold what it
// recorded for the program's threads; it is not one of them.
inline constexpr const char* kCollectorThread = "collector_thread";
// collect -P loaded the runtime into the running process (time_ns), and
// took it out again (detached, time_ns) with the process still running.
inline constexpr const char* kAttached = "attached";
inline constexpr const char* kDetached = "detached";
}  // namespace log_event

}  // namespace lumen::metadata
