#include "recording/run_pool.h"

#include <linux/futex.h>
#include <lumen/record_format.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "threads/own_threads_alive.h"
#include "recording/raw_syscalls.h"
#include "threads/own_thread_start.h"
#include "recording/stream_writer.h"
#include "threads/program_thread_state.h"

#include "threads/own_descriptor_table.h"

namespace lumen::collector {

namespace {

constexpr uint64_t kRunBytes = uint64_t{kMaxRunBlocks} * LUMEN_BLOCK_BYTES;
constexpr int kPreparedPerStream = 2;
constexpr int kHandedBackSlots = 32;

// A slot passes between a writer (in any context, maybe a signal handler,
// never waiting) and the preparing thread through its state: only the side
// that moved it to kFilling or kTaking touches the other fields until it
// moves it on.
enum SlotState : int { kEmpty, kFilling, kReady, kTaking, kPassedOver };

struct Slot {
  std::atomic<int> state{kEmpty};
  char* base = nullptr;
  uint64_t offset = 0;  // prepared runs: where in the file
  uint64_t bytes = 0;   // handed-back runs: how much to unmap
};

bool claim(Slot& slot, int from, int to) {
  int expected = from;
  return slot.state.compare_exchange_strong(expected, to, std::memory_order_acquire, std::memory_order_relaxed);
}

Slot g_prepared[kMaxStreams][kPreparedPerStream];
Slot g_handed_back[kHandedBackSlots];
std::atomic<bool> g_wanted[kMaxStreams];  // a thread of the stream asked for a full run
// A new thread's first block of a stream, mapped ahead: where the runtime's
// files are the keeper's, mapping one is a wait for that thread
// (recording/file_keeper.h), and elsewhere three system calls.
// A few kept ready; and once, as many more as the threads collect -P is
// about to begin at once (run_pool_expect_thread_begins, up to
// kFirstBlocksAtMost in all), for the streams a thread's begin writes to.
constexpr int kFirstBlocksUsually = 4;
constexpr int kFirstBlocksAtMost = 128;
Slot g_first_blocks[kMaxStreams][kFirstBlocksAtMost];
std::atomic<int> g_first_extra[kMaxStreams];  // still to prepare beyond the usual few
std::atomic<bool> g_first_wanted[kMaxStreams];  // a thread took a first block of the stream

std::atomic<bool> g_running{false};
std::atomic<int> g_stop{0};
// Bumped by every request; the preparing thread sleeps on it.
std::atomic<int> g_requests{0};
pthread_t g_thread;
std::atomic<uint64_t> g_count_prepared{0}, g_count_taken{0}, g_count_passed_over{0}, g_count_handed_back{0};
std::atomic<uint64_t> g_count_first_prepared{0}, g_count_first_taken{0};
void (*g_thread_begins)() = [] { collector_thread_begins(); };

void futex(std::atomic<int>& word, int operation, int value) {
  syscall(SYS_futex, reinterpret_cast<int*>(&word), operation, value, nullptr, nullptr, 0);
}

void ask() {
  g_requests.fetch_add(1, std::memory_order_release);
  futex(g_requests, FUTEX_WAKE_PRIVATE, 1);
}

// Maps a run and makes each page writable and touched: the touch is what
// takes the first-access trap here rather than on the writer's first record
// there (pages stay zeros, which readers skip until a block's header).
bool prepare(int stream, Slot& slot, uint32_t blocks) {
  uint64_t offset = 0;
  char* run = map_stream_run(stream, blocks, offset);
  if (run == nullptr) return false;
  const uint64_t bytes = uint64_t{blocks} * LUMEN_BLOCK_BYTES;
  syscall(SYS_madvise, run, bytes, kPopulateWrite);
  for (uint64_t at = 0; at < bytes; at += 4096) reinterpret_cast<volatile char*>(run)[at] = 0;
  slot.base = run;
  slot.offset = offset;
  (blocks == 1 ? g_count_first_prepared : g_count_prepared).fetch_add(1, std::memory_order_relaxed);
  return true;
}

void prepare_first_blocks() {
  for (int stream = 0; stream < kMaxStreams; ++stream) {
    if (!g_first_wanted[stream].load(std::memory_order_relaxed)) continue;
    for (int i = 0; i < kFirstBlocksAtMost; ++i) {
      Slot& slot = g_first_blocks[stream][i];
      if (g_stop.load(std::memory_order_acquire) != 0) return;
      if (i >= kFirstBlocksUsually && g_first_extra[stream].load(std::memory_order_relaxed) <= 0) break;
      if (!claim(slot, kEmpty, kFilling)) continue;
      const bool ok = prepare(stream, slot, 1);
      slot.state.store(ok ? kReady : kEmpty, std::memory_order_release);
      if (!ok) return;
      if (i >= kFirstBlocksUsually) g_first_extra[stream].fetch_sub(1, std::memory_order_relaxed);
    }
  }
}

void unmap_handed_back() {
  for (Slot& slot : g_handed_back) {
    if (!claim(slot, kReady, kTaking)) continue;
    raw_munmap(slot.base, slot.bytes);
    slot.state.store(kEmpty, std::memory_order_release);
    g_count_handed_back.fetch_add(1, std::memory_order_relaxed);
  }
}

void prepare_wanted() {
  for (int stream = 0; stream < kMaxStreams; ++stream) {
    if (!g_wanted[stream].load(std::memory_order_relaxed)) continue;
    for (Slot& slot : g_prepared[stream]) {
      if (g_stop.load(std::memory_order_acquire) != 0) return;
      if (claim(slot, kPassedOver, kFilling)) {
        discard_stream_run(stream, slot.base, slot.offset, kMaxRunBlocks);
      } else if (!claim(slot, kEmpty, kFilling)) {
        continue;
      }
      const bool ok = prepare(stream, slot, kMaxRunBlocks);
      slot.state.store(ok ? kReady : kEmpty, std::memory_order_release);
      if (!ok) return;  // the file refuses (disk full, limit): asked again by the next writer
    }
  }
}

void* run(void*) {
  const RuntimeGuard guard;  // the runtime's own thread for its whole life
  pthread_setname_np(pthread_self(), "lumen-runs");
  g_thread_begins();  // marks it the collector's own
  take_own_descriptor_table();
  int served = g_requests.load(std::memory_order_acquire);
  for (;;) {
    unmap_handed_back();
    prepare_first_blocks();  // first: a thread that starts waits for one
    prepare_wanted();
    while (g_requests.load(std::memory_order_acquire) == served && g_stop.load(std::memory_order_acquire) == 0)
      futex(g_requests, FUTEX_WAIT_PRIVATE, served);
    if (g_stop.load(std::memory_order_acquire) != 0) break;
    served = g_requests.load(std::memory_order_acquire);
  }
  collector_thread_ends();
  return nullptr;
}

// Each run the pool holds `release`d and its slot emptied. At the stop,
// other threads may still be taking a run or handing one back: only slots
// claimed from them here are touched. A forked child is `alone`: a slot its
// parent's threads left half-way is emptied too.
template <typename Release>
void empty_prepared(Slot& slot, int stream, uint32_t blocks, Release release, bool alone) {
  if (claim(slot, kReady, kTaking) || claim(slot, kPassedOver, kTaking)) {
    release(stream, slot.base, slot.offset, blocks);
    slot.state.store(kEmpty, std::memory_order_release);
  } else if (alone) {
    slot.state.store(kEmpty, std::memory_order_relaxed);
  }
}

// `release(stream, base, offset, blocks)` for a prepared run, and
// `release(-1, base, bytes, 0)` for a handed-back one.
template <typename Release>
void empty_slots(Release release, bool alone) {
  for (int stream = 0; stream < kMaxStreams; ++stream) {
    g_wanted[stream].store(false, std::memory_order_relaxed);
    g_first_wanted[stream].store(false, std::memory_order_relaxed);
    g_first_extra[stream].store(0, std::memory_order_relaxed);
    for (Slot& slot : g_prepared[stream]) empty_prepared(slot, stream, kMaxRunBlocks, release, alone);
    for (Slot& slot : g_first_blocks[stream]) empty_prepared(slot, stream, 1, release, alone);
  }
  for (Slot& slot : g_handed_back) {
    if (claim(slot, kReady, kTaking)) {
      release(-1, slot.base, slot.bytes, 0u);
      slot.state.store(kEmpty, std::memory_order_release);
    } else if (alone) {
      slot.state.store(kEmpty, std::memory_order_relaxed);
    }
  }
}

}  // namespace

void run_pool_start(void (*thread_begins)()) {
  if (g_running.load(std::memory_order_acquire)) return;
  if (thread_begins != nullptr) g_thread_begins = thread_begins;
  g_stop.store(0, std::memory_order_release);
  g_running.store(start_runtime_thread(&g_thread, run, nullptr, 64 * 1024), std::memory_order_release);
}

void run_pool_stop() {
  if (!g_running.exchange(false, std::memory_order_acq_rel)) return;
  g_stop.store(1, std::memory_order_release);
  ask();
  const RuntimeGuard guard;
  pthread_join(g_thread, nullptr);
  empty_slots([](int stream, char* base, uint64_t offset_or_bytes, uint32_t blocks) {
    if (blocks != 0)
      discard_stream_run(stream, base, offset_or_bytes, blocks);
    else
      raw_munmap(base, offset_or_bytes);
  }, false);
}

void run_pool_forget_after_fork() {
  g_running.store(false, std::memory_order_relaxed);
  g_stop.store(0, std::memory_order_relaxed);
  g_requests.store(0, std::memory_order_relaxed);
  // The child's copies of the parent's mappings; the parent keeps its own.
  empty_slots([](int, char* base, uint64_t offset_or_bytes, uint32_t blocks) {
    raw_munmap(base, blocks != 0 ? uint64_t{blocks} * LUMEN_BLOCK_BYTES : offset_or_bytes);
  }, true);
}

bool take_prepared_run(int stream, uint64_t after_offset, PreparedRun& run) {
  if (stream < 0 || stream >= kMaxStreams || !g_running.load(std::memory_order_acquire)) return false;
  g_wanted[stream].store(true, std::memory_order_relaxed);
  bool taken = false;
  for (Slot& slot : g_prepared[stream]) {
    if (!claim(slot, kReady, kTaking)) continue;
    // Reserved before the caller's own latest run (mapped while this one
    // was being prepared): taking it would put the thread's records out of
    // file order. The preparing thread gives it back and prepares another.
    if (slot.offset <= after_offset) {
      slot.state.store(kPassedOver, std::memory_order_release);
      g_count_passed_over.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    run = PreparedRun{slot.base, slot.offset};
    slot.state.store(kEmpty, std::memory_order_release);
    g_count_taken.fetch_add(1, std::memory_order_relaxed);
    taken = true;
    break;
  }
  ask();  // another one, or the first
  return taken;
}

bool take_first_block(int stream, PreparedRun& run) {
  if (stream < 0 || stream >= kMaxStreams || !g_running.load(std::memory_order_acquire)) return false;
  if (!g_first_wanted[stream].exchange(true, std::memory_order_relaxed)) ask();  // from now on
  for (Slot& slot : g_first_blocks[stream]) {
    if (!claim(slot, kReady, kTaking)) continue;
    run = PreparedRun{slot.base, slot.offset};
    slot.state.store(kEmpty, std::memory_order_release);
    g_count_first_taken.fetch_add(1, std::memory_order_relaxed);
    ask();  // another one
    return true;
  }
  return false;
}

void run_pool_expect_thread_begins(uint32_t count) {
  const int extra = count > kFirstBlocksAtMost - kFirstBlocksUsually ? kFirstBlocksAtMost - kFirstBlocksUsually
                                                                     : static_cast<int>(count);
  for (int stream = 0; stream < kMaxStreams; ++stream)
    if (g_first_wanted[stream].load(std::memory_order_relaxed)) g_first_extra[stream].store(extra, std::memory_order_relaxed);
  ask();
}

RunPoolCounts run_pool_counts() {
  return RunPoolCounts{g_count_prepared.load(std::memory_order_relaxed), g_count_taken.load(std::memory_order_relaxed),
                       g_count_passed_over.load(std::memory_order_relaxed),
                       g_count_handed_back.load(std::memory_order_relaxed),
                       g_count_first_prepared.load(std::memory_order_relaxed),
                       g_count_first_taken.load(std::memory_order_relaxed)};
}

bool hand_back_run(char* base, uint64_t bytes) {
  if (!g_running.load(std::memory_order_acquire)) return false;
  for (Slot& slot : g_handed_back) {
    if (!claim(slot, kEmpty, kFilling)) continue;
    slot.base = base;
    slot.bytes = bytes;
    slot.state.store(kReady, std::memory_order_release);
    ask();
    return true;
  }
  return false;
}

}  // namespace lumen::collector
