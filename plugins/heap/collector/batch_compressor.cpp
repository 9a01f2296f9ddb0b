#include "batch_compressor.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_initStaticCCtx: a workspace of our own, no allocator
#include <linux/futex.h>
#include <lumen/collector_support.h>
#include <lumen/record_format.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

#include "../heap_paired.h"
#include "../heap_record.h"

namespace lumen::heap {

namespace {

// The queue: Vyukov's bounded ring. A cell whose sequence equals the
// producer position is free; producer position + 1, filled.
constexpr uint64_t kCells = 512;  // 8 MiB of batches: the compressor may wait for a CPU a while on a busy machine
struct Cell {
  uint16_t bytes;
  alignas(8) uint8_t data[kPairedBatchBytes];
};
// The sequences apart from the cells: starting (or restarting in a forked
// child) touches 16 KiB, and a cell's pages only once it is used.
struct Ring {
  alignas(64) std::atomic<uint64_t> enqueue_at;
  alignas(64) uint64_t dequeue_at;  // the compressor's alone
  std::atomic<uint64_t> sequence[kCells];
  Cell cells[kCells];
};
static_assert((kCells & (kCells - 1)) == 0, "a power of two");
static_assert(std::atomic<uint64_t>::is_always_lock_free, "offered from signal handlers");

// What one compressed record may hold: its payload fits one block.
constexpr size_t kMaxCompressedBytes =
    LUMEN_BLOCK_BYTES - sizeof(lumen_block_header) - sizeof(uint32_t) - sizeof(HeapCompressed);
static_assert(kMaxCompressedBytes + sizeof(HeapCompressed) <= UINT16_MAX, "a record's payload");
constexpr size_t kMinGather = 16 * 1024;
// A frame as large as the most the compressor may be given: what did not
// fit a record is then known by its size.
const size_t kRecordRoom = ZSTD_compressBound(kMaxCompactBytes);

const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;
int g_level = 1;
Ring* g_ring = nullptr;
uint8_t* g_gathered = nullptr;  // kMaxCompactBytes: batches waiting to be compressed
uint8_t* g_record = nullptr;    // HeapCompressed and the frame: kRecordRoom, more than a record may hold
ZSTD_CCtx* g_context = nullptr;
uint8_t* g_compact = nullptr;   // kMaxCompactBytes: the gathered batches, compacted
std::atomic<bool> g_accepting{false};
// 0 while the thread runs, 1 once asked to stop (the futex word it sleeps
// on); g_done becomes 1 when it has written everything.
std::atomic<int> g_stop{0};
std::atomic<int> g_done{1};
// A cell claimed by the thread that then called stop() from a signal handler
// interrupting the offer: never filled (its position + 1; 0: none).
std::atomic<uint64_t> g_abandoned{0};
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_claimed = 0;  // position + 1 while filling
constexpr uint64_t kClaimedWaitNs = 1'000'000'000;  // a running producer fills its cell in far less, even preempted
static_assert(sizeof(std::atomic<int>) == sizeof(int), "futex words");

void* map_bytes(size_t bytes) {
  const long result = syscall(SYS_mmap, nullptr, bytes, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return result < 0 && result > -4096 ? nullptr : reinterpret_cast<void*>(result);
}

void reset_ring() {
  g_abandoned.store(0, std::memory_order_relaxed);
  g_ring->enqueue_at.store(0, std::memory_order_relaxed);
  g_ring->dequeue_at = 0;
  for (uint64_t i = 0; i < kCells; ++i) g_ring->sequence[i].store(i, std::memory_order_relaxed);
}

// The compressor's state between records.
size_t g_gathered_bytes = 0;
uint32_t g_gathered_batches = 0;
size_t g_gather_target = 64 * 1024;  // raw bytes to gather before compressing: follows the ratio

// The compaction's sections, mapped once (touched as used).
uint8_t* g_sections[kPairedSections] = {};
bool map_compaction() {
  bool mapped = true;
  for (uint8_t*& section : g_sections) mapped = (section = static_cast<uint8_t*>(map_bytes(kMaxCompactBytes))) != nullptr && mapped;
  return mapped;
}

// What may be gathered for one record: a compact record's limit (one more
// batch may follow the target).
size_t most_gathered() { return kMaxCompactBytes - kPairedBatchBytes - 2; }

// Compresses `batch_count` gathered batches (`bytes` at `from`), compacted
// (heap_paired.h), into g_record; returns the frame's size, which may be
// more than one record holds (0: not compressed, and the batches are
// written as they are).
size_t compress_batches(const uint8_t* from, size_t bytes, uint32_t batch_count) {
  const size_t compact = g_compact == nullptr ? 0 : compact_paired_batches(from, bytes, batch_count, g_compact, g_sections);
  if (compact == 0) return 0;
  const size_t size = ZSTD_compressCCtx(g_context, g_record + sizeof(HeapCompressed), kRecordRoom, g_compact,
                                        compact, g_level);
  if (ZSTD_isError(size)) return 0;
  const HeapCompressed header{static_cast<uint32_t>(compact), batch_count};
  std::memcpy(g_record, &header, sizeof header);
  return size;
}

void write_compressed(size_t size) {
  lumen::write_kept_record(g_runtime, g_stream, kPairedCompactRecord, g_record,
                           static_cast<uint16_t>(sizeof(HeapCompressed) + size));
}

// The bytes of the first `count` gathered batches at `from`.
size_t batch_bytes(const uint8_t* from, uint32_t count) {
  size_t at = 0;
  for (uint32_t n = 0; n < count; ++n) {
    uint16_t size;
    std::memcpy(&size, from + at, 2);
    at += 2 + size;
  }
  return at;
}

// Batches whose frame does not fit one record are split in two halves; a
// lone batch that does not fit (it cannot: it is smaller than a record) is
// written as it is.
void compress_or_split(const uint8_t* from, size_t bytes, uint32_t batch_count) {
  if (batch_count == 0) return;
  const size_t size = compress_batches(from, bytes, batch_count);
  if (size != 0 && size <= kMaxCompressedBytes) return write_compressed(size);
  if (batch_count == 1) {
    lumen::write_kept_record(g_runtime, g_stream, kPairedBatchRecord, from + 2, static_cast<uint16_t>(bytes - 2));
    return;
  }
  const size_t half = batch_bytes(from, batch_count / 2);
  compress_or_split(from, half, batch_count / 2);
  compress_or_split(from + half, bytes - half, batch_count - batch_count / 2);
}

// A record fills a block (the next one starts a new block), so the gathered
// batches aim at 94 % of one at the ratio last seen. When they come out
// larger, the share that fits is written and the rest starts the next
// record.
void compress_gathered() {
  if (g_gathered_bytes == 0) return;
  const size_t size = compress_batches(g_gathered, g_gathered_bytes, g_gathered_batches);
  if (size != 0) {
    const size_t aim = kMaxCompressedBytes * 94 / 100 * g_gathered_bytes / size;
    g_gather_target = aim < kMinGather ? kMinGather : aim > most_gathered() ? most_gathered() : aim;
  }
  if (size != 0 && size <= kMaxCompressedBytes) {
    write_compressed(size);
    g_gathered_bytes = 0;
    g_gathered_batches = 0;
    return;
  }
  uint32_t take = size == 0 ? g_gathered_batches / 2
                            : static_cast<uint32_t>(uint64_t{g_gathered_batches} * kMaxCompressedBytes * 94 / 100 / size);
  take = take == 0 ? 1 : take;
  const size_t taken = batch_bytes(g_gathered, take);
  compress_or_split(g_gathered, taken, take);
  std::memmove(g_gathered, g_gathered + taken, g_gathered_bytes - taken);
  g_gathered_bytes -= taken;
  g_gathered_batches -= take;
}

uint64_t monotonic_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

// Moves filled cells into the gathered bytes; false when none was ready.
// With `waiting_for_claimed`, a cell claimed but not yet filled (its
// producer is between two instructions) is waited for, a while: not the
// one its producer abandoned, nor beyond kClaimedWaitNs (a producer that
// never runs again); such a cell's batch is counted as dropped.
bool gather(bool waiting_for_claimed) {
  bool took = false;
  uint64_t waiting_since = 0;
  for (;;) {
    Cell& cell = g_ring->cells[g_ring->dequeue_at & (kCells - 1)];
    std::atomic<uint64_t>& cell_sequence = g_ring->sequence[g_ring->dequeue_at & (kCells - 1)];
    const uint64_t sequence = cell_sequence.load(std::memory_order_acquire);
    if (sequence != g_ring->dequeue_at + 1) {
      if (!waiting_for_claimed || g_ring->enqueue_at.load(std::memory_order_acquire) == g_ring->dequeue_at) return took;
      if (waiting_since == 0) waiting_since = monotonic_ns();
      if (g_abandoned.load(std::memory_order_acquire) == g_ring->dequeue_at + 1 ||
          monotonic_ns() - waiting_since > kClaimedWaitNs) {
        g_runtime->recording->count_drop();
        g_ring->dequeue_at += 1;
        waiting_since = 0;
        continue;
      }
      sched_yield();
      continue;
    }
    waiting_since = 0;
    std::memcpy(g_gathered + g_gathered_bytes, &cell.bytes, 2);
    std::memcpy(g_gathered + g_gathered_bytes + 2, cell.data, cell.bytes);
    g_gathered_bytes += 2 + cell.bytes;
    g_gathered_batches += 1;
    cell_sequence.store(g_ring->dequeue_at + kCells, std::memory_order_release);
    g_ring->dequeue_at += 1;
    took = true;
    if (g_gathered_bytes >= g_gather_target) compress_gathered();
  }
}

void* run(void*) {
  const lumen::TraceGuard inside(g_runtime);  // the collector's own thread: nothing it calls is traced
  // It compresses memory into the data files: off the program's table.
  if (LUMEN_PROVIDES(g_runtime->work, own_descriptor_table)) g_runtime->work->own_descriptor_table();
  for (;;) {
    const bool stopping = g_stop.load(std::memory_order_acquire) != 0;
    if (stopping) {
      gather(true);
      while (g_gathered_bytes != 0) compress_gathered();  // each call writes at least one batch
      break;
    }
    if (!gather(false)) {
      const timespec pause{0, 2'000'000};
      syscall(SYS_futex, reinterpret_cast<int*>(&g_stop), FUTEX_WAIT_PRIVATE, 0, &pause, nullptr, 0);
    }
  }
  g_done.store(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<int*>(&g_done), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  return nullptr;
}

// A thread of the runtime's own: the program never sees it, nor does
// analysis among the program's threads.
bool create_thread() {
  g_stop.store(0, std::memory_order_release);
  g_done.store(0, std::memory_order_release);
  const bool created = g_runtime->work->start_thread(run, nullptr) == 0;
  if (!created) g_done.store(1, std::memory_order_release);
  return created;
}

}  // namespace

bool compressor_start(const lumen_runtime* runtime, lumen_stream stream, int level) {
  g_runtime = runtime;
  g_stream = stream;
  g_level = level;
  if (g_ring == nullptr) {
    const size_t workspace = ZSTD_estimateCCtxSize(level);
    g_ring = static_cast<Ring*>(map_bytes(sizeof(Ring)));
    g_gathered = static_cast<uint8_t*>(map_bytes(kMaxCompactBytes));
    g_record = static_cast<uint8_t*>(map_bytes(sizeof(HeapCompressed) + kRecordRoom));
    void* context_memory = map_bytes(workspace);
    if (g_ring == nullptr || g_gathered == nullptr || g_record == nullptr || context_memory == nullptr) return false;
    g_context = ZSTD_initStaticCCtx(context_memory, workspace);
    if (g_context == nullptr) return false;
    if (map_compaction()) g_compact = static_cast<uint8_t*>(map_bytes(kMaxCompactBytes));
  }
  reset_ring();
  if (!create_thread()) return false;
  g_accepting.store(true, std::memory_order_release);
  return true;
}

bool compressor_offer(const uint8_t* batch, uint16_t bytes) noexcept {
  if (!g_accepting.load(std::memory_order_acquire) || bytes > kPairedBatchBytes) return false;
  uint64_t at = g_ring->enqueue_at.load(std::memory_order_relaxed);
  for (;;) {
    const uint64_t sequence = g_ring->sequence[at & (kCells - 1)].load(std::memory_order_acquire);
    const auto lag = static_cast<int64_t>(sequence - at);
    if (lag == 0) {
      if (g_ring->enqueue_at.compare_exchange_weak(at, at + 1, std::memory_order_relaxed)) {
      t_claimed = at + 1;
      break;
    }
    } else if (lag < 0) {
      return false;  // full: the compressor is behind
    } else {
      at = g_ring->enqueue_at.load(std::memory_order_relaxed);
    }
  }
  Cell& cell = g_ring->cells[at & (kCells - 1)];
  std::memcpy(cell.data, batch, bytes);
  cell.bytes = bytes;
  g_ring->sequence[at & (kCells - 1)].store(at + 1, std::memory_order_release);
  t_claimed = 0;
  return true;
}

void compressor_stop() noexcept {
  if (!g_accepting.exchange(false, std::memory_order_acq_rel)) return;
  // Called from a handler that interrupted this thread's own offer: its
  // cell stays unfilled, and the compressor must not wait for it.
  if (t_claimed != 0) g_abandoned.store(t_claimed, std::memory_order_release);
  g_stop.store(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<int*>(&g_stop), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  // Bounded: a process must be able to exit even if the thread was lost.
  for (int waited_ms = 0; g_done.load(std::memory_order_acquire) == 0 && waited_ms < 10'000; waited_ms += 10) {
    const timespec pause{0, 10'000'000};
    syscall(SYS_futex, reinterpret_cast<int*>(&g_done), FUTEX_WAIT_PRIVATE, 0, &pause, nullptr, 0);
  }
}

void compressor_forget_after_fork() noexcept { g_accepting.store(false, std::memory_order_relaxed); }

void compressor_after_fork() noexcept {
  if (!g_accepting.load(std::memory_order_acquire)) return;
  g_accepting.store(false, std::memory_order_relaxed);
  g_gathered_bytes = 0;
  g_gathered_batches = 0;
  reset_ring();
  if (create_thread()) g_accepting.store(true, std::memory_order_release);
}

}  // namespace lumen::heap
