// The fsync plugin's collector half: its descriptor and lifecycle, and the
// two calls it traces, fsync and fdatasync.
//
// The definitions replace libc's only because collect preloads the
// collector half (LD_PRELOAD). Each forwards its argument to the next
// definition (libc's, or another preloaded object's) and returns its result
// and errno unchanged; while the plugin records, it also times the call and
// writes one record with the caller's stack and the descriptor's name.
// They are bound to glibc's names and symbol version by the LUMEN_SYMVER
// lines at the end (fsync_exports.map declares the version; on x86-64 glibc
// exports both under GLIBC_2.2.5, check with objdump -T libc.so.6).
//
// A program may call fsync from a signal handler: everything on the way is
// async-signal-safe (an atomic, the runtime's services, readlink).
#include <lumen/collector_support.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "../fsync_record.h"

namespace fsync_plugin {
namespace {

std::atomic<int> g_tracing{0};
static_assert(std::atomic<int>::is_always_lock_free, "read on every traced call");
// Written by start() before g_tracing is published (release).
const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;

lumen::RealFunction<int(int)> r_fsync{"fsync", "GLIBC_2.2.5"};
lumen::RealFunction<int(int)> r_fdatasync{"fdatasync", "GLIBC_2.2.5"};

// "/proc/self/fd/N" without stdio.
void link_of(int fd, char (&link)[32]) {
  char digits[12];
  size_t count = 0;
  unsigned value = static_cast<unsigned>(fd);
  do digits[count++] = static_cast<char>('0' + value % 10); while ((value /= 10) != 0);
  std::memcpy(link, "/proc/self/fd/", 14);
  for (size_t i = 0; i < count; ++i) link[14 + i] = digits[count - 1 - i];
  link[14 + count] = '\0';
}

void record(Call call, int fd, uint64_t start_ns, int result) {
  const lumen::ErrnoKept errno_kept;
  const int error = errno;
  const uint64_t end_ns = g_runtime->time->now_ns();
  // Not inside the collector already (its own syncs are not traced).
  const lumen::TraceGuard guard(g_runtime);
  if (!guard) return;
  struct {
    SyncCall call;
    char name[kMaxName];
  } r{};
  char link[32];
  link_of(fd, link);
  const ssize_t length = fd >= 0 ? readlink(link, r.name, sizeof r.name) : -1;
  r.call.start_ns = start_ns;
  r.call.duration_ns = end_ns > start_ns ? end_ns - start_ns : 0;
  // The stack starts at the program's call: the frames of this object are
  // left out by the runtime.
  r.call.stack_id = g_runtime->stacks->capture_stack(nullptr, 0);
  r.call.thread_id = g_runtime->threads->thread_id();
  r.call.result = result;
  r.call.call = static_cast<uint16_t>(call);
  r.call.error = result < 0 ? static_cast<uint16_t>(error) : 0;
  r.call.name_bytes = length > 0 ? static_cast<uint32_t>(length) : 0;
  g_runtime->recording->write_record(g_stream, kSyncRecord, &r,
                                     static_cast<uint16_t>(sizeof r.call + r.call.name_bytes));
}

int traced(Call call, lumen::RealFunction<int(int)>& real, int fd) {
  if (!g_tracing.load(std::memory_order_acquire)) return real.get()(fd);
  const uint64_t start = g_runtime->time->now_ns();
  const int result = real.get()(fd);
  record(call, fd, start, result);
  return result;
}

int start(const lumen_runtime* runtime, const lumen_option_value*, size_t, char* error, size_t error_size) {
  g_runtime = runtime;
  g_stream = runtime->recording->open_stream(kDataFile);
  if (g_stream < 0) {
    std::snprintf(error, error_size, "cannot create the data file '%s'", kDataFile);
    return 1;
  }
  g_tracing.store(1, std::memory_order_release);
  return 0;
}

void stop() { g_tracing.store(0, std::memory_order_release); }

const lumen_flag_alias kFlagAliases[] = {{"on", ""}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "fsync",
    .version = "1.0",
    .data_file = kDataFile,
    .description = "fsync and fdatasync: how often and how long the program waited for its files to reach the disk",
    .flag = {"fsync", nullptr, kFlagAliases, 1, "-fsync on|off   fsync and fdatasync tracing (an SDK example)"},
    .start = start,
    .stop = stop,
};

}  // namespace
}  // namespace fsync_plugin

using namespace fsync_plugin;

LUMEN_EXPORT int fsync_traced(int fd) { return traced(Call::kFsync, r_fsync, fd); }
LUMEN_EXPORT int fdatasync_traced(int fd) { return traced(Call::kFdatasync, r_fdatasync, fd); }

// Looked up while the process is still single-threaded, before the runtime
// starts the plugin, so that the first traced calls do not pay for dlsym.
__attribute__((constructor)) static void resolve_at_load() { r_fsync.resolve(), r_fdatasync.resolve(); }

// DEFAULT ("@@"): the version a program linking today binds.
LUMEN_SYMVER(fsync_traced, fsync, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(fdatasync_traced, fdatasync, "GLIBC_2.2.5", DEFAULT);

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin(void) { return &kPlugin; }
