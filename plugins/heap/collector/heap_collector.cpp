// Heap tracing: the collector half's descriptor, start and stop, and the
// records the interposers (heap_interposers.cpp) write.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "batch_compressor.h"
#include "before_start.h"
#include "event_clock.h"
#include "event_batches.h"
#include "heap_collector.h"
#include "live_table.h"

namespace lumen::heap {

namespace detail {
const lumen_runtime* g_runtime = nullptr;
std::atomic<bool> g_running{false};
static_assert(std::atomic<bool>::is_always_lock_free, "read in every interposer, handlers included");
}  // namespace detail

namespace {

using detail::g_runtime;
lumen_stream g_stream = -1;
uint64_t g_start_ns = 0;

// Interposers run in signal handlers too: the stack capture may touch errno
// (libunwind validating addresses) and the writer makes system calls.
using lumen::ErrnoKept;

}  // namespace

namespace {

void append_free(EventType type, const Freed& freed) noexcept {
  PairedEvent event{};
  event.type = type;
  event.frees = true;
  event.freed = freed;
  Appended unused;
  batch_append(event, unused);
}

// Makes an appended allocation live. An entry it replaces was released
// unseen (a MAP_FIXED mapping over another, a block freed where nothing is
// traced): its release is recorded after the allocation.
void make_live(const Appended& appended, const void* address, bool mapping, size_t size) {
  LiveEntry replaced{};
  const LiveEntry entry{live_key(address, mapping), appended.ordinal, size, appended.mark_ns, appended.thread_id, 0};
  if (!live_insert(entry, replaced)) return;
  append_free(mapping ? EventType::kUnmap : EventType::kFree,
              {true, replaced.thread_id, replaced.ordinal, replaced.mark_ns, replaced.size, 0});
}

Freed take(const void* address, bool mapping) noexcept {
  LiveEntry entry;
  if (!live_remove(live_key(address, mapping), entry)) return {false, 0, 0, 0, 0, reinterpret_cast<uint64_t>(address)};
  return {true, entry.thread_id, entry.ordinal, entry.mark_ns, entry.size, 0};
}

// An allocation (kAlloc, or kRealloc that released `freed` when `frees`)
// appended and made live.
void append_allocation(EventType type, Allocator allocator, bool frees, const Freed& freed, const void* address,
                       size_t size, uint64_t stack_id) noexcept {
  PairedEvent event{};
  event.type = type;
  event.allocator = allocator;
  event.frees = frees;
  event.freed = freed;
  event.size = size;
  event.stack_id = stack_id;
  Appended appended;
  if (batch_append(event, appended)) make_live(appended, address, is_mapping(allocator), size);
}

}  // namespace

// The recording functions capture the stack themselves and stay out of line:
// the stack starts at the caller of the function that asks for it, so
// inlined into the interposer it would lose the program's frame above.
__attribute__((noinline)) void record_allocation(const TraceGuard&, Allocator allocator, const void* address, size_t size) noexcept {
  if (!lumen::recording_now(g_runtime)) return;  // paused, or outside the window (collect -y, -t)
  const ErrnoKept errno_kept;
  append_allocation(EventType::kAlloc, allocator, false, Freed{}, address, size,
                    g_runtime->stacks->capture_stack(nullptr, 0));
}

Freed take_live(const TraceGuard&, const void* address, bool mapping) noexcept { return take(address, mapping); }

void restore_live(const TraceGuard&, const Freed& freed, const void* address, bool mapping) noexcept {
  if (!freed.known) return;
  LiveEntry replaced;
  live_insert({live_key(address, mapping), freed.ordinal, freed.size, freed.mark_ns, freed.thread_id, 0}, replaced);
}

__attribute__((noinline)) void record_reallocation(const TraceGuard&, Allocator allocator, bool frees,
                                                   const Freed& freed, const void* address, size_t size) noexcept {
  const ErrnoKept errno_kept;
  // Not recording now: the new block is not recorded, the release of one
  // that was is (a block's fate, once recorded, is followed to its free).
  if (!lumen::recording_now(g_runtime)) {
    if (frees && freed.known) append_free(is_mapping(allocator) ? EventType::kUnmap : EventType::kFree, freed);
    return;
  }
  append_allocation(EventType::kRealloc, allocator, frees, freed, address, size,
                    g_runtime->stacks->capture_stack(nullptr, 0));
}

void record_free(const TraceGuard&, EventType type, const Freed& freed) noexcept {
  const ErrnoKept errno_kept;
  append_free(type, freed);
}

namespace {

// A call kept before collection started, recorded as one made now, its
// stack the call site alone. Only what it released of the kept calls counts: a free of a block
// allocated before the interposers saw any call (the dynamic linker's) is
// left out, as is a reallocation's release of one.
void replay(const KeptCall& call) {
  const bool mapping = call.type == EventType::kUnmap || is_mapping(call.allocator);
  if (call.type == EventType::kFree || call.type == EventType::kUnmap) {
    const Freed freed = take(call.address, mapping);
    if (freed.known) append_free(call.type, freed);
    return;
  }
  const Freed freed = call.frees ? take(call.old, mapping) : Freed{};
  const uint64_t call_site = reinterpret_cast<uint64_t>(call.call_site);
  const uint64_t stack = call_site == 0 ? LUMEN_NO_STACK
                                        : g_runtime->stacks->intern_stack(
                                              &call_site, 1, LUMEN_STACK_LEAF_IS_RETURN | LUMEN_STACK_TRUNCATED);
  append_allocation(call.type, call.allocator, freed.known, freed, call.address, call.size, stack);
}

// The kept calls, before any interposer records (on this thread the
// runtime's guard is held; no other thread records before g_running).
void replay_before_start() {
  const size_t lost = before_start_close(replay);
  if (lost == 0) return;
  char note[160];
  std::snprintf(note, sizeof note,
                "heap: %zu allocation calls made before collection started were not recorded (their table was full)",
                lost);
  g_runtime->recording->log_note(note);
}

// Every event of the process is stamped after its start.
bool write_start_record() {
  const HeapStart record{g_runtime->time->now_ns(), static_cast<uint32_t>(getpid()), 0};
  event_clock_start(g_runtime, record.time_ns);
  g_start_ns = record.time_ns;
  return lumen::write_kept_record(g_runtime, g_stream, kStartRecord, &record, sizeof record) != 0;
}

// The batches hold the parent's events, which the parent writes. A followed
// child writes into its own sub-experiment from here on (the runtime has
// redirected the files before it calls fork_child).
void fork_child() {
  if (!detail::g_running.load(std::memory_order_acquire)) return;
  batches_forget_after_fork();
  live_forget_after_fork();
  if (g_runtime->guard->collecting() != 0) live_start();
  if (g_runtime->guard->collecting() == 0) {
    compressor_forget_after_fork();
    return;
  }
  write_start_record();
  compressor_after_fork();
}

int start(const lumen_runtime* runtime, const lumen_option_value* options, size_t count, char* error,
          size_t error_size) {
  const bool enabled = std::strcmp(lumen_option(options, count, "enable", "1"), "1") == 0;
  g_runtime = runtime;
  if (!enabled) {
    runtime->recording->log_note("heap tracing is planned with enable=off: allocations are forwarded, not traced");
    return 0;
  }
  g_stream = runtime->recording->open_stream(kDataFile);
  if (g_stream < 0) {
    std::snprintf(error, error_size, "cannot create the data file '%s'", kDataFile);
    return 1;
  }
  // Written before any interposer may record (collection has not begun), so
  // it is the first record of this experiment's file.
  if (!write_start_record()) {
    std::snprintf(error, error_size, "cannot write to the data file '%s'", kDataFile);
    return 1;
  }
  batches_start(runtime, g_stream, g_start_ns);
  live_start();
  replay_before_start();
  // Before tracing begins: the thread's own stack and TLS are not traced.
  const int level = std::atoi(lumen_option(options, count, "compress", "1"));
  if (level > 0 && !compressor_start(runtime, g_stream, level))
    runtime->recording->log_note("heap: the compression thread could not start; batches are written uncompressed");
  detail::g_running.store(true, std::memory_order_release);
  return 0;
}

void thread_end() {
  if (detail::g_running.load(std::memory_order_acquire)) batches_thread_end();
}

void stop() {
  if (!detail::g_running.exchange(false, std::memory_order_acq_rel)) return;
  batches_stop();
  compressor_stop();  // after the last batch is offered
}

const lumen_option_def kOptions[] = {
    {"enable", LUMEN_OPTION_BOOLEAN, "on", 0, 0, 0,
     "trace malloc, calloc, realloc, free, memalign, posix_memalign, aligned_alloc, valloc, pvalloc, mmap, "
     "mremap and munmap"},
    {"compress", LUMEN_OPTION_INTEGER, "1", 0, 19, 0,
     "zstd level of the heap data, compressed on a thread of the collector's own (0: written uncompressed)"},
};

const lumen_flag_alias kFlagAliases[] = {{"on", "on"}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "heap",
    .version = "1.0",
    .data_file = kDataFile,
    .description = "Heap tracing: every allocation and deallocation with the caller's stack",
    .options = kOptions,
    .option_count = std::size(kOptions),
    .flag = {"H", "enable", kFlagAliases, std::size(kFlagAliases),
             "-H on|off     heap tracing: malloc family, C++ new/delete, mmap/munmap (exact counts and leaks)"},
    .start = start,
    .thread_end = thread_end,
    .stop = stop,
    .fork_child = fork_child,
    .attach = LUMEN_WORKS_AFTER_ATTACH | LUMEN_INTERPOSES_AFTER_ATTACH,
    .calls_in_progress = lumen::interposed_calls_in_progress,
};

}  // namespace

}  // namespace lumen::heap

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin() {
  return &lumen::heap::kPlugin;
}
