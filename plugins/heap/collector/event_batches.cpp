#include "event_batches.h"

#include "batch_compressor.h"
#include "bytes_in_use.h"
#include "event_clock.h"

#include <lumen/collector_support.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace lumen::heap {

namespace {

enum : uint32_t { kIdle = 0, kAppending = 1, kClosed = 2 };

struct Slot {
  std::atomic<uint32_t> owned;  // 0: free for a thread to claim
  std::atomic<uint32_t> busy;   // kIdle, kAppending (owner or stop), kClosed (after stop)
  uint32_t thread_id;
  uint32_t used;   // bytes of `data` in use, HeapPairedBatch included; 0: no batch open
  uint32_t count;  // events in the open batch
  alignas(8) uint8_t data[kPairedBatchBytes];
};

constexpr int kSlotsPerChunk = 32;
struct Chunk {
  Slot slots[kSlotsPerChunk];
  std::atomic<Chunk*> next;
};

static_assert(std::atomic<uint32_t>::is_always_lock_free && std::atomic<Chunk*>::is_always_lock_free,
              "touched from interposers in signal handlers");

const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;
std::atomic<Chunk*> g_chunks{nullptr};
std::atomic<bool> g_stopped{false};
__attribute__((tls_model("initial-exec"))) thread_local Slot* t_slot = nullptr;
// Where the calling thread is in its own slot, for stop() called on a
// thread interrupted there (a signal handler that exits): kInAppend, its
// batch holds whole events only; kInWrite, the batch is being handed on.
enum : uint8_t { kOutside = 0, kInAppend = 1, kInWrite = 2 };
__attribute__((tls_model("initial-exec"))) thread_local uint8_t t_phase = kOutside;
// The thread's allocations so far and its latest mark: its own, not its
// slot's, so that they go on if it claims a slot again (after thread_end,
// a destructor of its thread-local data allocating).
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_ordinal = 0;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_mark = 0;
// The highest bytes in use the thread's latest event saw (bytes_in_use.h).
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_highest = 0;

// By system call: the plugin's own memory is not an allocation of the target.
Chunk* map_chunk() {
  const long result = syscall(SYS_mmap, nullptr, sizeof(Chunk), PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return result < 0 && result > -4096 ? nullptr : reinterpret_cast<Chunk*>(result);  // zeroed: all free, idle
}

template <typename Visit>
void for_each_slot(Visit&& visit) {
  for (Chunk* c = g_chunks.load(std::memory_order_acquire); c != nullptr; c = c->next.load(std::memory_order_acquire))
    for (Slot& slot : c->slots) visit(slot);
}

Slot* claim_slot() {
  for (;;) {
    Slot* found = nullptr;
    for_each_slot([&](Slot& slot) {
      uint32_t free = 0;
      if (found == nullptr && slot.owned.load(std::memory_order_relaxed) == 0 &&
          slot.owned.compare_exchange_strong(free, 1, std::memory_order_acquire))
        found = &slot;
    });
    if (found != nullptr) {
      found->thread_id = g_runtime->threads->thread_id();
      found->used = 0;
      found->count = 0;
      return found;
    }
    Chunk* fresh = map_chunk();
    if (fresh == nullptr) return nullptr;
    if (g_stopped.load(std::memory_order_acquire)) {
      for (Slot& slot : fresh->slots) slot.busy.store(kClosed, std::memory_order_relaxed);
    }
    Chunk* head = g_chunks.load(std::memory_order_acquire);
    do fresh->next.store(head, std::memory_order_relaxed);
    while (!g_chunks.compare_exchange_weak(head, fresh, std::memory_order_acq_rel));
  }
}

// Called by whoever holds the slot's busy word.
void write_batch(Slot& slot) {
  if (slot.count == 0) return;
  HeapPairedBatch* header = reinterpret_cast<HeapPairedBatch*>(slot.data);
  header->thread_id = slot.thread_id;
  header->event_count = slot.count;
  const uint8_t phase = t_phase;
  t_phase = kInWrite;
  if (!compressor_offer(slot.data, static_cast<uint16_t>(slot.used)))
    lumen::write_kept_record(g_runtime, g_stream, kPairedBatchRecord, slot.data, static_cast<uint16_t>(slot.used));
  slot.used = 0;
  slot.count = 0;
  t_phase = phase;
}

}  // namespace

void batches_start(const lumen_runtime* runtime, lumen_stream stream, uint64_t start_ns) {
  g_runtime = runtime;
  g_stream = stream;
  if (t_mark < start_ns) t_mark = start_ns;
}

namespace {

uint8_t* put_reference(uint8_t* out, const Freed& freed, uint32_t thread_id) {
  if (!freed.known) return put_varint(put_varint(out, static_cast<uint64_t>(RefKind::kAddress)), freed.address);
  if (freed.thread_id == thread_id)
    return put_varint(out, (t_ordinal - freed.ordinal) << 2 | static_cast<uint64_t>(RefKind::kOwn));
  out = put_varint(out, uint64_t{freed.thread_id} << 2 | static_cast<uint64_t>(RefKind::kOther));
  return put_varint(out, freed.ordinal);
}

// The mark this event needs to be later than or at (see batch_append).
uint64_t mark_floor(const PairedEvent& event, uint32_t thread_id) {
  uint64_t floor = 0;
  const uint64_t change = map_change_ns();
  if (change != 0) floor = change + 1;
  const uint64_t reading = latest_runtime_reading();
  if (reading + 1 > floor) floor = reading + 1;
  if (event.frees && event.freed.known && event.freed.thread_id != thread_id && event.freed.mark_ns + 1 > floor)
    floor = event.freed.mark_ns + 1;
  return floor;
}

}  // namespace

bool batch_append(const PairedEvent& event, Appended& appended) noexcept {
  Slot* slot = t_slot;
  if (slot == nullptr && (slot = t_slot = claim_slot()) == nullptr) {
    g_runtime->recording->count_drop();
    return false;
  }
  if (slot->busy.exchange(kAppending, std::memory_order_acquire) == kClosed) {
    slot->busy.store(kClosed, std::memory_order_release);
    g_runtime->recording->count_drop();  // collection stopped while this event was under way
    return false;
  }
  t_phase = kInAppend;
  if (slot->used + kMaxEventBytes > kPairedBatchBytes) write_batch(*slot);
  const uint64_t now = clock_now();
  const uint64_t floor = mark_floor(event, slot->thread_id);
  if (slot->count == 0) {
    // Strictly later than the thread's previous batch (its batches may
    // reach the file out of order), and no new reading: one ns later
    // repeats in the record, a reading would not.
    t_mark = t_mark + 1 > floor ? t_mark + 1 : floor;
    auto* header = reinterpret_cast<HeapPairedBatch*>(slot->data);
    header->base_time_ns = t_mark;
    header->base_ordinal = t_ordinal;
    slot->used = sizeof(HeapPairedBatch);
  }
  if (now >= t_mark + kMarkGranularityNs || floor > t_mark) {
    const uint64_t mark = now > floor ? now : floor;
    uint8_t* out = slot->data + slot->used;
    *out++ = static_cast<uint8_t>(static_cast<uint8_t>(EventType::kMark) << 4);
    out = put_varint(out, mark - t_mark);
    t_mark = mark;
    slot->used = static_cast<uint32_t>(out - slot->data);
    slot->count += 1;
  }
  // The event's change to the bytes in use, before an allocation enters the
  // live table (so a free of it on another thread is later at the word),
  // after a free's real call. A realloc changes them once, by the
  // difference.
  int64_t delta = 0;
  if (event.frees && event.freed.known) delta -= static_cast<int64_t>(event.freed.size);
  if (event.type == EventType::kAlloc || event.type == EventType::kRealloc) delta += static_cast<int64_t>(event.size);
  bool raised = false;
  const uint64_t highest = bytes_in_use_change(delta, raised);
  if (highest > t_highest) {
    uint8_t* out = slot->data + slot->used;
    *out++ = static_cast<uint8_t>(static_cast<uint8_t>(EventType::kHighest) << 4);
    out = put_varint(out, highest << 1 | (raised ? 1 : 0));
    t_highest = highest;
    slot->used = static_cast<uint32_t>(out - slot->data);
    slot->count += 1;
  }
  uint8_t* out = slot->data + slot->used;
  uint8_t tag = static_cast<uint8_t>((static_cast<uint8_t>(event.type) << 4) | static_cast<uint8_t>(event.allocator));
  if (event.type == EventType::kRealloc && event.frees) tag |= kTagFreedOld;
  *out++ = tag;
  if (event.frees) out = put_reference(out, event.freed, slot->thread_id);
  if (event.type == EventType::kAlloc || event.type == EventType::kRealloc) {
    out = put_varint(out, event.size);
    out = put_varint(out, event.stack_id + 1);
    appended = {slot->thread_id, t_ordinal++, t_mark};
  }
  slot->used = static_cast<uint32_t>(out - slot->data);
  slot->count += 1;
  t_phase = kOutside;
  slot->busy.store(kIdle, std::memory_order_release);
  return true;
}

void batches_thread_end() noexcept {
  Slot* slot = t_slot;
  if (slot == nullptr) return;
  t_slot = nullptr;
  if (slot->busy.exchange(kAppending, std::memory_order_acquire) != kClosed) {
    write_batch(*slot);
    slot->busy.store(kIdle, std::memory_order_release);
  } else {
    slot->busy.store(kClosed, std::memory_order_release);
  }
  slot->owned.store(0, std::memory_order_release);
}

void batches_stop() noexcept {
  g_stopped.store(true, std::memory_order_release);
  for_each_slot([](Slot& slot) {
    if (&slot == t_slot && t_phase != kOutside) {
      // This thread was interrupted inside its own append (by a handler
      // that ended the process): it will not finish it. Its whole events
      // are written; a batch it was handing on is the compressor's (which
      // counts it as dropped if the handing on was cut short).
      if (t_phase == kInAppend) write_batch(slot);
      slot.busy.store(kClosed, std::memory_order_release);
      return;
    }
    // An owner holds `busy` for one append; it is running, so this ends.
    uint32_t expected = kIdle;
    while (!slot.busy.compare_exchange_weak(expected, kAppending, std::memory_order_acquire)) {
      if (expected == kClosed) return;
      expected = kIdle;
      sched_yield();
    }
    write_batch(slot);
    slot.busy.store(kClosed, std::memory_order_release);
  });
}

void batches_forget_after_fork() noexcept {
  t_slot = nullptr;
  t_ordinal = 0;  // the child's data starts afresh
  t_highest = 0;
  bytes_in_use_forget_after_fork();
  for_each_slot([](Slot& slot) {
    slot.used = 0;
    slot.count = 0;
    slot.busy.store(kIdle, std::memory_order_relaxed);
    slot.owned.store(0, std::memory_order_relaxed);
  });
}

}  // namespace lumen::heap
