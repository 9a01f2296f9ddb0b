// The pool of the program threads' states. Chunks of slots are mapped as
// threads need them (a handler may be a thread's first use: raw mmap, no
// lock). A slot is taken by compare-and-swap of its owner's tid; a thread
// whose collection ended retires its slot, which the next thread that needs
// one takes over once the kernel knows the owner no more (tgkill's probe).
#include "threads/program_thread_state.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <new>
#include <type_traits>

#include "recording/raw_syscalls.h"

namespace lumen::collector {

static_assert(std::atomic<uint32_t>::is_always_lock_free, "handler touches it");

namespace {

constexpr uint32_t kStatesPerChunk = 64;
constexpr uint32_t kMaxStateChunks = 1024;  // 65,536 threads alive at once

struct Slot {
  ThreadState state;  // first: a state's address is its slot's
  std::atomic<uint32_t> owner;    // tid, 0 while free
  std::atomic<uint32_t> retired;  // the owner's collection ended
};
static_assert(std::is_standard_layout_v<Slot>);

Slot* slot_of(ThreadState* state) { return reinterpret_cast<Slot*>(state); }

std::atomic<Slot*> g_state_chunks[kMaxStateChunks];
std::atomic<uint32_t> g_slots_handed{0};  // slots ever handed out: the scan's end
ThreadState g_overflow;                    // shared by threads the pool has no room for

uint32_t own_tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

bool thread_gone(uint32_t tid) { return syscall(SYS_tgkill, getpid(), tid, 0) != 0 && errno == ESRCH; }

Slot* slot_at(uint32_t index, bool map) {
  std::atomic<Slot*>& chunk = g_state_chunks[index / kStatesPerChunk];
  Slot* slots = chunk.load(std::memory_order_acquire);
  if (slots == nullptr && map) {
    void* fresh = raw_mmap(nullptr, sizeof(Slot) * kStatesPerChunk, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (fresh == MAP_FAILED) return nullptr;
    if (chunk.compare_exchange_strong(slots, static_cast<Slot*>(fresh), std::memory_order_acq_rel))
      slots = static_cast<Slot*>(fresh);
    else
      raw_munmap(fresh, sizeof(Slot) * kStatesPerChunk);  // another thread mapped it meanwhile
  }
  return slots == nullptr ? nullptr : &slots[index % kStatesPerChunk];
}

ThreadState* take(Slot* slot, uint32_t tid) {
  slot->retired.store(0, std::memory_order_relaxed);
  ThreadState* state = new (&slot->state) ThreadState{};
  state->tid = tid;
  return state;
}

// A retired slot whose owner is gone, or a slot never handed out.
ThreadState* acquire(uint32_t tid) {
  const uint32_t handed = g_slots_handed.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < handed; ++i) {
    Slot* slot = slot_at(i, false);
    if (slot == nullptr || slot->retired.load(std::memory_order_acquire) == 0) continue;
    uint32_t owner = slot->owner.load(std::memory_order_relaxed);
    if (owner != 0 && !thread_gone(owner)) continue;
    if (slot->owner.compare_exchange_strong(owner, tid, std::memory_order_acq_rel)) return take(slot, tid);
  }
  for (;;) {
    uint32_t index = g_slots_handed.load(std::memory_order_relaxed);
    if (index >= kStatesPerChunk * kMaxStateChunks) return nullptr;
    Slot* slot = slot_at(index, true);
    if (slot == nullptr) return nullptr;
    if (!g_slots_handed.compare_exchange_weak(index, index + 1, std::memory_order_acq_rel)) continue;
    slot->owner.store(tid, std::memory_order_relaxed);
    return take(slot, tid);
  }
}

}  // namespace

ThreadState& first_use_of_thread_state() {
  const uint32_t tid = own_tid();
  if (ThreadState* state = t_thread_state) {  // a forked child's first use
    state->tid = tid;
    if (state != &g_overflow) slot_of(state)->owner.store(tid, std::memory_order_relaxed);
    return *state;
  }
  ThreadState* state = acquire(tid);
  if (state == nullptr) {
    g_overflow.finished = true;  // nothing of such a thread is written
    g_overflow.tid = tid;
    state = &g_overflow;
  }
  t_thread_state = state;
  return *state;
}

void retire_thread_state() {
  ThreadState* state = t_thread_state;
  if (state == nullptr || state == &g_overflow) return;
  slot_of(state)->retired.store(1, std::memory_order_release);
}

void release_thread_states() {
  for (std::atomic<Slot*>& chunk : g_state_chunks)
    if (Slot* slots = chunk.exchange(nullptr, std::memory_order_acq_rel)) raw_munmap(slots, sizeof(Slot) * kStatesPerChunk);
  g_slots_handed.store(0, std::memory_order_release);
}

}  // namespace lumen::collector
