#include "stacks/stack_table.h"

#include <lumen/record_format.h>
#include "recording/raw_syscalls.h"

#include <atomic>
#include <cstring>

#include "recording/stream_writer.h"
#include "threads/program_thread_state.h"

namespace lumen::collector {

namespace {

constexpr uint64_t kSlotCount = 1u << 20;        // 8 MiB of slots, touched lazily
// The entries live in chunks mapped as they are needed, up to a GiB in all:
// a program that caps its address space (RLIMIT_AS) keeps what it would
// have without collect but for the chunks its stacks take.
constexpr uint64_t kChunkShift = 22;              // 4 MiB chunks
constexpr uint64_t kChunkBytes = 1ull << kChunkShift;
constexpr uint64_t kMaxChunks = 256;
constexpr uint64_t kArenaBytes = kChunkBytes * kMaxChunks;
constexpr uint32_t kMaxProbes = 4096;

struct Entry {
  uint64_t hash;
  uint64_t id;
  uint32_t depth;
  uint32_t flags;
  uint64_t pcs[];  // depth entries
};

// A slot holds 1 + the entry's offset in the arena; 0 means empty.
std::atomic<uint64_t>* g_slots = nullptr;
std::atomic<char*> g_chunks[kMaxChunks];
std::atomic<uint64_t> g_arena_used{0};
std::atomic<uint64_t> g_next_id{0};
std::atomic<uint64_t> g_table_generation{1};  // a reset table's ids are new ones
int g_stacks_stream = -1;

bool latest_is(const uint64_t* pcs, uint32_t depth, uint32_t flags, uint64_t& id) {
  LatestInterned& latest = current_thread().latest_interned;
  const uint32_t sequence = latest.sequence;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if ((sequence & 1) != 0 || latest.depth != depth || latest.flags != flags ||
      latest.generation != g_table_generation.load(std::memory_order_relaxed) ||
      std::memcmp(latest.pcs, pcs, depth * sizeof(uint64_t)) != 0)
    return false;
  id = latest.id;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return latest.sequence == sequence;
}

uint64_t remember_latest(const uint64_t* pcs, uint32_t depth, uint32_t flags, uint64_t id) {
  LatestInterned& latest = current_thread().latest_interned;
  if ((latest.sequence & 1) != 0) return id;  // a handler over this thread's own write
  ++latest.sequence;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  latest.depth = depth;
  latest.flags = flags;
  latest.generation = g_table_generation.load(std::memory_order_relaxed);
  latest.id = id;
  std::memcpy(latest.pcs, pcs, depth * sizeof(uint64_t));
  std::atomic_signal_fence(std::memory_order_seq_cst);
  ++latest.sequence;
  return id;
}
static_assert(std::atomic<uint64_t>::is_always_lock_free, "handler touches it");

uint64_t hash_stack(const uint64_t* pcs, uint32_t depth, uint32_t flags) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (static_cast<uint64_t>(depth) << 32) ^ flags;
  for (uint32_t i = 0; i < depth; ++i) {
    h ^= pcs[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return h ^ (h >> 33);
}

bool same_stack(const Entry* e, uint64_t hash, const uint64_t* pcs, uint32_t depth, uint32_t flags) {
  return e->hash == hash && e->depth == depth && e->flags == flags &&
         std::memcmp(e->pcs, pcs, depth * sizeof(uint64_t)) == 0;
}

const Entry* entry_at(uint64_t at) {
  return reinterpret_cast<const Entry*>(g_chunks[at >> kChunkShift].load(std::memory_order_acquire) +
                                        (at & (kChunkBytes - 1)));
}

// [signal-safe] The chunk holding offset `at`, mapped by whichever thread
// needs it first (raw mmap: a handler may be the first).
char* chunk_for(uint64_t at) {
  std::atomic<char*>& chunk = g_chunks[at >> kChunkShift];
  char* mapped = chunk.load(std::memory_order_acquire);
  if (mapped != nullptr) return mapped;
  void* fresh = raw_mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (fresh == MAP_FAILED) return nullptr;
  if (chunk.compare_exchange_strong(mapped, static_cast<char*>(fresh), std::memory_order_acq_rel)) return static_cast<char*>(fresh);
  raw_munmap(fresh, kChunkBytes);  // another thread mapped it meanwhile
  return mapped;
}

Entry* new_entry(uint64_t hash, const uint64_t* pcs, uint32_t depth, uint32_t flags, uint64_t* ref) {
  const uint64_t bytes = (sizeof(Entry) + depth * sizeof(uint64_t) + 7) & ~7ull;
  // An entry never spans two chunks: one that would starts the next one.
  uint64_t at = g_arena_used.load(std::memory_order_relaxed), end;
  do {
    const uint64_t start = ((at & (kChunkBytes - 1)) + bytes > kChunkBytes) ? (at | (kChunkBytes - 1)) + 1 : at;
    end = start + bytes;
    if (end > kArenaBytes) return nullptr;
    if (g_arena_used.compare_exchange_weak(at, end, std::memory_order_relaxed)) {
      at = start;
      break;
    }
  } while (true);
  char* chunk = chunk_for(at);
  if (chunk == nullptr) return nullptr;
  auto* e = reinterpret_cast<Entry*>(chunk + (at & (kChunkBytes - 1)));
  e->hash = hash;
  e->depth = depth;
  e->flags = flags;
  std::memcpy(e->pcs, pcs, depth * sizeof(uint64_t));
  e->id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  *ref = at + 1;
  return e;
}

void write_stack_record(const Entry* e) {
  // The record is the entry minus its hash: id, depth, flags, pcs.
  static_assert(sizeof(lumen_stack_record) == sizeof(Entry) - sizeof(uint64_t), "layout");
  const auto* record = reinterpret_cast<const char*>(e) + sizeof(uint64_t);
  write_record(g_stacks_stream, LUMEN_RECORD_STACK, record,
               static_cast<uint16_t>(sizeof(lumen_stack_record) + e->depth * sizeof(uint64_t)));
}

}  // namespace

bool stack_table_init(int stacks_stream) {
  void* slots = raw_mmap(nullptr, kSlotCount * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (slots == MAP_FAILED) return false;
  g_slots = static_cast<std::atomic<uint64_t>*>(slots);
  g_stacks_stream = stacks_stream;
  g_table_generation.fetch_add(1, std::memory_order_relaxed);  // an empty table: no thread's copy is in it
  return true;
}

uint64_t stack_table_generation() { return g_table_generation.load(std::memory_order_relaxed); }

void stack_table_reset() {
  if (g_slots != nullptr) raw_munmap(g_slots, kSlotCount * sizeof(uint64_t));
  for (auto& chunk : g_chunks)
    if (char* mapped = chunk.exchange(nullptr, std::memory_order_relaxed)) raw_munmap(mapped, kChunkBytes);
  g_slots = nullptr;
  g_arena_used.store(0, std::memory_order_relaxed);
  g_next_id.store(0, std::memory_order_relaxed);
  stack_table_init(g_stacks_stream);
}

uint64_t stack_table_intern(const uint64_t* pcs, uint32_t depth, uint32_t flags) {
  if (g_slots == nullptr || depth > LUMEN_MAX_STACK_DEPTH) return LUMEN_NO_STACK;
  uint64_t id;
  if (latest_is(pcs, depth, flags, id)) return id;
  const uint64_t hash = hash_stack(pcs, depth, flags);
  Entry* mine = nullptr;
  uint64_t my_ref = 0;
  uint64_t slot = hash & (kSlotCount - 1);
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe, slot = (slot + 1) & (kSlotCount - 1)) {
    uint64_t ref = g_slots[slot].load(std::memory_order_acquire);
    if (ref == 0) {
      if (mine == nullptr && (mine = new_entry(hash, pcs, depth, flags, &my_ref)) == nullptr)
        return LUMEN_NO_STACK;
      if (g_slots[slot].compare_exchange_strong(ref, my_ref, std::memory_order_acq_rel)) {
        write_stack_record(mine);
        return remember_latest(pcs, depth, flags, mine->id);
      }
      // Lost the race for this slot: `ref` now holds the winner's entry.
    }
    const Entry* e = entry_at(ref - 1);
    if (same_stack(e, hash, pcs, depth, flags)) return remember_latest(pcs, depth, flags, e->id);
  }
  return LUMEN_NO_STACK;
}

}  // namespace lumen::collector
