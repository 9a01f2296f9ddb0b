// OpenMP tracing: the plugin's lifecycle. start() records which OpenMP
// runtime the process uses and its wait policy, then opens the interposers
// (gomp_interposers.cpp) by publishing the runtime's services; stop()
// records the end and closes them.
#include <dlfcn.h>
#include <lumen/collector_support.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <strings.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "omp_collector.h"
#include "../omp_short_records.h"

namespace lumen::omp {

std::atomic<const lumen_runtime*> g_recording_runtime{nullptr};

namespace {

lumen_stream g_stream = -1;
// Region ids carry the process id in their high half, so that the regions
// of several processes (MPI ranks, forked children) analysed together stay
// apart.
// Each counter on a cache line of its own: a region's encountering thread
// advances it while the team's threads read the flags every callback reads
// (g_recording_runtime, g_ompt_active), which shared its line before: the
// line then moved between the cores twice a region.
struct alignas(64) IdCounter {
  std::atomic<uint64_t> last{0};
};
IdCounter g_last_region;
IdCounter g_last_task;
uint64_t g_region_base = 0;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_current_region = 0;

// The thread's block of call-site caches; kReleased after its thread_end.
struct SiteCaches {
  lumen_capture_cache sites[static_cast<int>(Site::kCount)];
};
SiteCaches* const kReleased = reinterpret_cast<SiteCaches*>(uintptr_t{1});
__attribute__((tls_model("initial-exec"))) thread_local SiteCaches* t_site_caches = nullptr;
std::atomic<bool> g_ompt_active{false};

bool library_loaded(const char* soname) {
  void* handle = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

Runtime loaded_runtime() {
  if (library_loaded("libgomp.so.1")) return Runtime::kLibgomp;
  if (library_loaded("libomp.so.5") || library_loaded("libomp.so")) return Runtime::kLibomp;
  return Runtime::kUnknown;
}

WaitPolicy wait_policy_of(const char* value) {
  if (value == nullptr) return WaitPolicy::kUnset;
  if (strcasecmp(value, "active") == 0) return WaitPolicy::kActive;
  if (strcasecmp(value, "passive") == 0) return WaitPolicy::kPassive;
  return WaitPolicy::kOther;
}

int start(const lumen_runtime* runtime, const lumen_option_value*, size_t, char* error, size_t error_size) {
  g_stream = runtime->recording->open_stream(kDataFile);
  if (g_stream < 0) {
    std::snprintf(error, error_size, "cannot open %s", kDataFile);
    return 1;
  }
  resolve_runtime_functions();
  g_region_base = static_cast<uint64_t>(getpid()) << 32;
  OmpProcess process{};
  process.runtime = static_cast<uint32_t>(loaded_runtime());
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  process.wait_policy = static_cast<uint32_t>(wait_policy_of(policy));
  if (const char* threads = std::getenv("OMP_NUM_THREADS")) process.max_threads = std::strtoul(threads, nullptr, 10);
  lumen::write_kept_record(runtime, g_stream, kProcessRecord, &process, sizeof process);
  char note[160];
  std::snprintf(note, sizeof note, "OpenMP: %s, OMP_WAIT_POLICY=%s", runtime_name(process.runtime),
                policy != nullptr ? policy : "unset (the runtime's default)");
  runtime->recording->log_note(note);
  g_recording_runtime.store(runtime, std::memory_order_release);
  observe_clock_samples(runtime);
  return 0;
}

void thread_end() { release_site_caches(); }

void stop() {
  const lumen_runtime* runtime = g_recording_runtime.load(std::memory_order_acquire);
  if (runtime == nullptr) return;
  const OmpProcessEnd end{runtime->time->now_ns()};
  lumen::write_kept_record(runtime, g_stream, kProcessEndRecord, &end, sizeof end);
  g_recording_runtime.store(nullptr, std::memory_order_release);
}

// The region the parent was in means nothing in a forked child's own
// experiment.
void fork_child() {
  t_current_region = 0;
  resolve_runtime_functions();
  g_region_base = static_cast<uint64_t>(getpid()) << 32;
  g_last_region.last.store(0, std::memory_order_relaxed);
  g_last_task.last.store(0, std::memory_order_relaxed);
}

const lumen_option_def kOptions[] = {
    {"enable", LUMEN_OPTION_BOOLEAN, "on", 0, 1, 0,
     "trace OpenMP parallel regions, implicit tasks and waits (on by itself with clock profiling of an OpenMP "
     "program)"},
};

const lumen_flag_alias kFlagAliases[] = {{"on", "on"}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "omp",
    .version = "1.0",
    .data_file = kDataFile,
    .description = "OpenMP tracing: parallel regions, implicit tasks, barriers, locks and critical sections "
                   "(GCC libgomp by interposition, LLVM libomp as an OMPT tool); splits clock profiling into ompwork and ompwait",
    .options = kOptions,
    .option_count = std::size(kOptions),
    .flag = {"omp", "enable", kFlagAliases, std::size(kFlagAliases),
             "-omp on|off   OpenMP tracing: regions, implicit tasks, barriers, locks (on by itself with -p for "
             "OpenMP programs)"},
    .start = start,
    .thread_end = thread_end,
    .stop = stop,
    .fork_child = fork_child,
};

}  // namespace

lumen_capture_cache* site_cache(Site site) {
  SiteCaches* caches = t_site_caches;
  if (caches == kReleased) return nullptr;
  if (caches == nullptr) {
    // Straight to the kernel: a tracer of mmap must not see the plugin's.
    void* block = reinterpret_cast<void*>(syscall(SYS_mmap, nullptr, sizeof(SiteCaches), PROT_READ | PROT_WRITE,
                                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (block == MAP_FAILED) return nullptr;
    caches = t_site_caches = static_cast<SiteCaches*>(block);
  }
  return &caches->sites[static_cast<int>(site)];
}

void release_site_caches() {
  SiteCaches* caches = t_site_caches;
  t_site_caches = kReleased;
  if (caches != nullptr && caches != kReleased) syscall(SYS_munmap, caches, sizeof(SiteCaches));
}

bool ompt_active() { return g_ompt_active.load(std::memory_order_acquire); }
void set_ompt_active() { g_ompt_active.store(true, std::memory_order_release); }

uint64_t next_region_id() { return g_region_base | (g_last_region.last.fetch_add(1, std::memory_order_relaxed) + 1); }

uint64_t next_task_id() { return g_region_base | (g_last_task.last.fetch_add(1, std::memory_order_relaxed) + 1); }

const lumen_runtime* interposing_runtime() { return ompt_active() ? nullptr : recording_runtime(); }

uint64_t current_region() { return t_current_region; }
void set_current_region(uint64_t region_id) { t_current_region = region_id; }

void write_region(const TraceGuard&, const OmpRegion& region) {
  if (const lumen_runtime* runtime = recording_runtime())
    runtime->recording->write_record(g_stream, kRegionRecord, &region, sizeof region);
}

// The record's short form (omp_short_records.h) when its values fit.
template <typename Short, typename Long>
void write_short_or_long(uint16_t short_kind, uint16_t long_kind, const Long& record) {
  const lumen_runtime* runtime = recording_runtime();
  if (runtime == nullptr) return;
  Short short_form;
  if (shorten(record, &short_form))
    runtime->recording->write_record(g_stream, short_kind, &short_form, sizeof short_form);
  else
    runtime->recording->write_record(g_stream, long_kind, &record, sizeof record);
}

void write_task(const TraceGuard&, const OmpTask& task) {
  write_short_or_long<OmpShortTask>(kShortTaskRecord, kTaskRecord, task);
}

void write_region_task(const TraceGuard&, const OmpRegionTask& region_task) {
  write_short_or_long<OmpShortRegionTask>(kShortRegionTaskRecord, kRegionTaskRecord, region_task);
}

void write_region_with_task(const TraceGuard& guard, const OmpRegion& region, uint64_t task_begin_ns,
                            uint64_t task_end_ns) {
  if (task_end_ns == 0) return write_region(guard, region);
  if (task_begin_ns >= region.begin_ns && task_end_ns >= task_begin_ns && task_end_ns <= region.end_ns &&
      task_end_ns - region.begin_ns <= UINT32_MAX) {
    return write_region_task(guard, OmpRegionTask{region, static_cast<uint32_t>(task_begin_ns - region.begin_ns),
                                                  static_cast<uint32_t>(task_end_ns - region.begin_ns)});
  }
  write_region(guard, region);
  write_task(guard, OmpTask{region.region_id, task_begin_ns, task_end_ns, region.thread_id, 0});
}

void write_explicit_task(const TraceGuard&, const OmpExplicitTask& task) {
  if (const lumen_runtime* runtime = recording_runtime())
    runtime->recording->write_record(g_stream, kExplicitTaskRecord, &task, sizeof task);
}

void write_state(const OmpState& state) {
  if (const lumen_runtime* runtime = recording_runtime())
    runtime->recording->write_record(g_stream, kStateRecord, &state, sizeof state);
}

#ifndef LUMEN_OMP_TOOLS_HEADER
void observe_clock_samples(const lumen_runtime*) {}
#endif

void write_wait(const TraceGuard&, const OmpWait& wait) {
  if (const lumen_runtime* runtime = recording_runtime())
    runtime->recording->write_record(g_stream, kWaitRecord, &wait, sizeof wait);
}

}  // namespace lumen::omp

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin() { return &lumen::omp::kPlugin; }
