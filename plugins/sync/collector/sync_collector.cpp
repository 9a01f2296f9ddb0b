// Synchronization wait tracing: the plugin's lifecycle and its one record.
//
// start() settles the threshold (given, or calibrated on uncontended calls),
// writes it to the data file and the experiment log, and then opens the
// interposers (sync_interposers.cpp) by publishing it; stop() closes them.
#include <lumen/collector_support.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "../sync_record.h"
#include "sync_collector.h"
#include "sync_option_check.h"
#include "sync_threshold.h"

namespace lumen::sync {

std::atomic<int64_t> g_threshold_ns{-1};

namespace {

// Written by start() before g_threshold_ns is published (release); read by
// wrappers only after they loaded a threshold >= 0 (acquire).
const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;

// Oracle's factor: a wait must be this many times an uncontended call to
// count as a wait rather than the cost of the call itself.
constexpr int kCalibrationFactor = 6;
constexpr uint32_t kCalibrationPairs = 1000;
constexpr int kCalibrationBatches = 20;

// The average of an uncontended lock/unlock pair on a private mutex, in
// picoseconds: the fastest of several batches, so that a batch the scheduler
// interrupted does not inflate it.
uint64_t measure_uncontended_pair_ps() {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  uint64_t best_ns = UINT64_MAX;
  for (int batch = 0; batch < kCalibrationBatches; ++batch) {
    const uint64_t begin = g_runtime->time->now_ns();
    for (uint32_t i = 0; i < kCalibrationPairs; ++i) {
      real_mutex_lock(&mutex);
      real_mutex_unlock(&mutex);
    }
    const uint64_t elapsed = g_runtime->time->now_ns() - begin;
    if (elapsed < best_ns) best_ns = elapsed;
  }
  return best_ns * 1000 / kCalibrationPairs;
}

int start(const lumen_runtime* runtime, const lumen_option_value* options, size_t count, char* error,
          size_t error_size) {
  g_runtime = runtime;
  const char* written = lumen_option(options, count, "threshold", "calibrate");
  ThresholdSetting setting;
  if (!parse_threshold(written, &setting)) {
    std::snprintf(error, error_size, "threshold '%s' is not %s", written, kThresholdSyntax);
    return 1;
  }
  resolve_real_functions();
  g_stream = runtime->recording->open_stream(kDataFile);
  if (g_stream < 0) {
    std::snprintf(error, error_size, "cannot create the data file '%s'", kDataFile);
    return 1;
  }

  SyncSettings settings{};
  char note[256];
  if (setting.calibrate) {
    settings.calibration_pair_ps = measure_uncontended_pair_ps();
    settings.calibration_pairs = kCalibrationPairs;
    settings.flags = kThresholdCalibrated;
    // At least 1 ns: a calibrated threshold never means "every call".
    const uint64_t threshold = (settings.calibration_pair_ps * kCalibrationFactor + 500) / 1000;
    settings.threshold_ns = threshold == 0 ? 1 : threshold;
    std::snprintf(note, sizeof note,
                  "sync: threshold %llu ns, calibrated: %d x %.1f ns per uncontended pthread_mutex_lock/unlock pair "
                  "(fastest of %d batches of %u)",
                  static_cast<unsigned long long>(settings.threshold_ns), kCalibrationFactor,
                  static_cast<double>(settings.calibration_pair_ps) / 1000.0, kCalibrationBatches, kCalibrationPairs);
  } else {
    settings.threshold_ns = static_cast<uint64_t>(setting.ns);
    if (setting.ns == 0)
      std::snprintf(note, sizeof note, "sync: threshold 0 ns: every traced call is recorded");
    else
      std::snprintf(note, sizeof note, "sync: threshold %llu ns, as given ('%s')",
                    static_cast<unsigned long long>(settings.threshold_ns), written);
  }
  lumen::write_kept_record(runtime, g_stream, kSettingsRecord, &settings, sizeof settings);
  runtime->recording->log_note(note);
  g_threshold_ns.store(static_cast<int64_t>(settings.threshold_ns), std::memory_order_release);
  return 0;
}

void stop() { g_threshold_ns.store(-1, std::memory_order_release); }

const lumen_option_def kOptions[] = {
    {"threshold", LUMEN_OPTION_STRING, "calibrate", 0, 0, 0,
     "record calls that waited longer than this: 'calibrate' (6 x an uncontended call, measured at start), "
     "'all' or 0 (every call), or microseconds (5000, 0.5; or with a suffix ns, us, ms, s)"},
};

const lumen_flag_alias kFlagAliases[] = {{"on", "calibrate"}, {"all", "0"}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "sync",
    .version = "1.0",
    .data_file = kDataFile,
    .description = "Synchronization wait tracing: mutexes, rwlocks, condition variables, semaphores, barriers and "
                   "joins that waited longer than a threshold",
    .options = kOptions,
    .option_count = std::size(kOptions),
    .flag = {"s", "threshold", kFlagAliases, std::size(kFlagAliases),
             "-s on|off|all|calibrate|<us>  synchronization wait tracing (on = calibrate: 6 x an uncontended lock; "
             "all = every call; a number: microseconds)"},
    .start = start,
    .stop = stop,
    .host_hooks = &kHostHooks,
    .attach = LUMEN_WORKS_AFTER_ATTACH | LUMEN_INTERPOSES_AFTER_ATTACH,
    .calls_in_progress = lumen::interposed_calls_in_progress,
};

}  // namespace

uint64_t now_ns() { return g_runtime->time->now_ns(); }

namespace {
// Waits of this thread inside a wait another plugin records (a Java
// monitor's, whose JVM waits on its own condition variables): left out, so
// that the wait counts once.
__attribute__((tls_model("initial-exec"))) thread_local int t_recorded_elsewhere;
}  // namespace

__attribute__((noinline)) void record_wait(uint64_t request_ns, uint64_t grant_ns, const void* object, ObjectKind kind,
                                           Call call, int result) {
  const ErrnoKept errno_kept;
  if (t_recorded_elsewhere > 0) return;
  if (const TraceGuard guard(g_runtime); guard) {
    SyncWait wait{};
    wait.request_ns = request_ns;
    wait.grant_ns = grant_ns;
    wait.object = reinterpret_cast<uint64_t>(object);
    // The stack starts at the caller of pthread_mutex_lock & co.: the frames
    // between here and there are this object's, which the runtime leaves out.
    wait.stack_id = g_runtime->stacks->capture_stack(nullptr, 0);
    wait.thread_id = g_runtime->threads->thread_id();
    wait.object_kind = static_cast<uint16_t>(kind);
    wait.call = static_cast<uint16_t>(call);
    wait.result = result;
    g_runtime->recording->write_record(g_stream, kWaitRecord, &wait, sizeof wait);
  }
}

}  // namespace lumen::sync

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin() {
  return &lumen::sync::kPlugin;
}

// For plugins that record waits of their own into this plugin's data file
// (sync_record.h, kMonitorWaitRecord): the threshold in force (-1 when not
// recording), and this thread's waits to leave out while such a wait lasts
// (`delta` +1 at its start, -1 at its end). [signal-safe]
extern "C" LUMEN_EXPORT int64_t lumen_sync_threshold_ns() { return lumen::sync::current_threshold(); }
extern "C" LUMEN_EXPORT void lumen_sync_recorded_elsewhere(int delta) { lumen::sync::t_recorded_elsewhere += delta; }

// Real functions are looked up while the process is still single-threaded,
// before the runtime starts the plugin. Wrappers called even earlier (by
// another object's constructor) look theirs up on first use.
__attribute__((constructor)) static void lumen_sync_resolve_at_load() { lumen::sync::resolve_real_functions(); }
