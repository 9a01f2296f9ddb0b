#include "stacks/object_snapshot.h"

#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include <lumen/collector_support.h>

#include "time/clock.h"
#include "recording/raw_syscalls.h"

namespace lumen::collector {

namespace {

// One mapping: this header, `count` dl_phdr_info, then the program headers
// and names they point to.
struct Snapshot {
  Snapshot* retired_next;
  size_t bytes;  // mapped
  size_t used;   // filled, headers and copies alike
  size_t count;
  dl_phdr_info objects[];
};

std::atomic<Snapshot*> g_current{nullptr};
std::atomic<uint64_t> g_snapshot_generation{0};
std::atomic<int> g_readers{0};
std::atomic<bool> g_missed{false};
std::atomic<bool> g_refreshing{false};
std::atomic<uint64_t> g_last_refresh_ns{0};
Snapshot* g_retired = nullptr;  // guarded by g_refreshing
size_t g_last_used = 0;         // guarded by g_refreshing

constexpr uint64_t kMissRefreshInterval = 10'000'000;

using DlIteratePhdr = int (*)(PhdrCallback, void*);

DlIteratePhdr real_function() {
  static std::atomic<DlIteratePhdr> real{nullptr};
  DlIteratePhdr function = real.load(std::memory_order_acquire);
  if (function == nullptr) {
    function = lumen::next_function<DlIteratePhdr>("dl_iterate_phdr", "GLIBC_2.2.5");
    real.store(function, std::memory_order_release);
  }
  return function;
}

size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

// Fills one mapping; stops (and says so) when the next object does not fit.
struct Builder {
  Snapshot* snapshot;
  size_t capacity;
  size_t object_slots;
  char* tail;  // where the next copied headers and name go
  bool overflowed;
};

int copy_object(dl_phdr_info* info, size_t, void* opaque) {
  auto* builder = static_cast<Builder*>(opaque);
  Snapshot* snapshot = builder->snapshot;
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  const size_t name_bytes = std::strlen(name) + 1;
  const size_t headers_bytes = align8(sizeof(ElfW(Phdr)) * info->dlpi_phnum);
  char* end = reinterpret_cast<char*>(snapshot) + builder->capacity;
  if (snapshot->count == builder->object_slots || builder->tail + headers_bytes + name_bytes > end) {
    builder->overflowed = true;
    return 1;
  }
  dl_phdr_info& copy = snapshot->objects[snapshot->count++];
  copy = *info;
  copy.dlpi_tls_data = nullptr;  // the refreshing thread's, meaningless to others
  std::memcpy(builder->tail, info->dlpi_phdr, sizeof(ElfW(Phdr)) * info->dlpi_phnum);
  copy.dlpi_phdr = reinterpret_cast<const ElfW(Phdr)*>(builder->tail);
  builder->tail += headers_bytes;
  std::memcpy(builder->tail, name, name_bytes);
  copy.dlpi_name = builder->tail;
  builder->tail += align8(name_bytes);
  return 0;
}

Snapshot* take_snapshot(size_t capacity) {
  void* memory = raw_mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  auto* snapshot = static_cast<Snapshot*>(memory);
  snapshot->bytes = capacity;
  snapshot->count = 0;
  // A quarter of the space for the fixed-size entries, the rest for copies.
  const size_t slots = (capacity / 4) / sizeof(dl_phdr_info);
  Builder builder{snapshot, capacity, slots, reinterpret_cast<char*>(&snapshot->objects[slots]), false};
  real_dl_iterate_phdr(copy_object, &builder);
  snapshot->used = static_cast<size_t>(builder.tail - reinterpret_cast<char*>(snapshot));
  if (!builder.overflowed) return snapshot;
  raw_munmap(memory, capacity);
  return nullptr;
}

// The same objects: glibc counts every load and unload in each entry
// (dlpi_adds, dlpi_subs), so equal counts mean nothing came or went.
bool same_objects(const Snapshot* a, const Snapshot* b) {
  if (a == nullptr || b == nullptr || a->count != b->count) return false;
  if (a->count == 0) return true;
  return a->objects[0].dlpi_adds == b->objects[0].dlpi_adds && a->objects[0].dlpi_subs == b->objects[0].dlpi_subs;
}

void free_retired_unless_read() {
  if (g_readers.load() != 0) return;
  while (g_retired != nullptr) {
    Snapshot* next = g_retired->retired_next;
    raw_munmap(g_retired, g_retired->bytes);
    g_retired = next;
  }
}

}  // namespace

int real_dl_iterate_phdr(PhdrCallback callback, void* data) {
  const DlIteratePhdr real = real_function();
  return real != nullptr ? real(callback, data) : 0;
}

void object_snapshot_refresh() {
  // No signal meanwhile: the real dl_iterate_phdr holds the linker's lock,
  // and a handler must never find its own thread half-way through this.
  sigset_t all, saved;
  sigfillset(&all);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &saved, _NSIG / 8);
  // One refresher at a time; a caller that finds another one busy waits,
  // since the snapshot being taken may predate what the caller changed.
  while (g_refreshing.exchange(true, std::memory_order_acquire)) sched_yield();
  g_missed.store(false, std::memory_order_relaxed);
  Snapshot* fresh = nullptr;
  // Room for twice what the last one held: objects come and go in bulk.
  for (size_t capacity = std::max<size_t>(64 * 1024, 2 * g_last_used); fresh == nullptr && capacity <= (size_t{1} << 30);
       capacity *= 2)
    fresh = take_snapshot(capacity);
  if (fresh != nullptr) {
    g_last_used = fresh->used;
    Snapshot* old = g_current.exchange(fresh);
    // A refresh after a miss (a pc in no object: a signal trampoline of a
    // tool like valgrind) that finds the same objects is no change: what
    // depends on the generation (reused captures) stays valid.
    if (!same_objects(old, fresh)) g_snapshot_generation.fetch_add(1, std::memory_order_release);
    if (old != nullptr) {
      old->retired_next = g_retired;
      g_retired = old;
    }
  }
  free_retired_unless_read();
  g_last_refresh_ns.store(monotonic_ns(), std::memory_order_relaxed);
  g_refreshing.store(false, std::memory_order_release);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved, nullptr, _NSIG / 8);
}

void object_snapshot_fork_prepare() {
  // A refresh blocks every signal, so this thread is never inside one.
  while (g_refreshing.exchange(true, std::memory_order_acquire)) sched_yield();
}

void object_snapshot_fork_done() { g_refreshing.store(false, std::memory_order_release); }

void object_snapshot_refresh_if_missed() {
  if (!g_missed.load(std::memory_order_relaxed)) return;
  if (monotonic_ns() - g_last_refresh_ns.load(std::memory_order_relaxed) < kMissRefreshInterval) return;
  object_snapshot_refresh();
}

int object_snapshot_iterate(PhdrCallback callback, void* data) {
  // Counted before the pointer is read: a refresher that sees no reader
  // after publishing knows nobody can still be inside what it replaced.
  g_readers.fetch_add(1);
  const Snapshot* snapshot = g_current.load();
  int result = 0;
  for (size_t i = 0; snapshot != nullptr && i < snapshot->count && result == 0; ++i) {
    dl_phdr_info copy = snapshot->objects[i];
    result = callback(&copy, sizeof copy, data);
  }
  g_readers.fetch_sub(1);
  if (result == 0) g_missed.store(true, std::memory_order_relaxed);
  return result;
}

uint64_t object_snapshot_generation() { return g_snapshot_generation.load(std::memory_order_acquire); }

namespace {

// The loaded segment of the latest snapshot's objects that holds `address`:
// sets [*start, *end) and its permission flags. Segments do not overlap.
bool find_segment(uint64_t address, uint64_t* start, uint64_t* end, uint32_t* flags) {
  g_readers.fetch_add(1);
  const Snapshot* snapshot = g_current.load();
  bool found = false;
  for (size_t i = 0; snapshot != nullptr && i < snapshot->count && !found; ++i) {
    const dl_phdr_info& object = snapshot->objects[i];
    for (int h = 0; h < object.dlpi_phnum && !found; ++h) {
      const ElfW(Phdr)& ph = object.dlpi_phdr[h];
      const uint64_t from = object.dlpi_addr + ph.p_vaddr;
      found = ph.p_type == PT_LOAD && address >= from && address < from + ph.p_memsz;
      if (found) *start = from, *end = from + ph.p_memsz, *flags = ph.p_flags;
    }
  }
  g_readers.fetch_sub(1);
  return found;
}

}  // namespace

bool object_snapshot_segment(uint64_t address, uint64_t* start, uint64_t* end, bool* writable) {
  uint32_t flags = 0;
  if (!find_segment(address, start, end, &flags)) return false;
  *writable = (flags & PF_W) != 0;
  return true;
}

bool object_snapshot_holds_code(uint64_t pc) {
  uint64_t start = 0, end = 0;
  uint32_t flags = 0;
  return find_segment(pc, &start, &end, &flags) && (flags & PF_X) != 0;
}

}  // namespace lumen::collector
