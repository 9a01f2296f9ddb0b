#include "procfs/small_requests.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "procfs/held_task_files.h"
#include "procfs/reader_placement.h"

namespace lumen::collector {

namespace {

// A slot's life: claimed by a caller, filled, asked; taken and answered by
// the reader; read and freed by the caller. A caller that gives up on an
// asked slot (the reader stopped) marks it abandoned, and the reader frees
// it; one being served is awaited, since its work may use the caller's
// argument.
enum SmallSlotState : uint32_t { kSlotFree, kSlotFilling, kSlotAsked, kSlotServing, kSlotAnswered, kSlotAbandoned };

struct SmallFile {
  uint32_t tid;
  char name[32];
  size_t size;
  size_t offset;  // of its bytes in the slot's
  long result;
};

// All zero until used: the slots are constant-initialized (constinit), so
// no constructor of this file's, run after the runtime's own started
// collection in a preloaded process, can free a slot under way.
struct SmallSlot {
  std::atomic<uint32_t> state{kSlotFree};
  bool private_table;
  long (*work)(void*);
  void* argument;
  int cpu;  // the asker's, for work (reader_placement.h); -1 for files
  long work_result;
  int work_errno;
  size_t count;
  SmallFile files[kSmallRequestFiles];
  char bytes[kSmallRequestBytes];
};

constexpr size_t kSmallSlots = 128;
constinit SmallSlot g_slots[kSmallSlots];
constinit std::atomic<uint32_t> g_waiting{0};  // callers awaiting an answer

// A slot's answer comes in microseconds, unless the reader waits for a
// CPU; a reader that has not answered within this long is taken as gone.
constexpr long long kSmallAnswerWithinNs = 2'000'000'000;
constexpr long long kSmallSpinNs = 10'000;
constexpr long long kSmallSliceNs = 100'000'000;

long long small_now_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

void slot_futex(std::atomic<uint32_t>& word, int operation, uint32_t value, const timespec* timeout) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), operation, value, timeout, nullptr, 0);
}

SmallSlot* claim_slot() {
  for (SmallSlot& slot : g_slots) {
    uint32_t free = kSlotFree;
    if (slot.state.compare_exchange_strong(free, kSlotFilling, std::memory_order_acquire)) return &slot;
  }
  return nullptr;
}

// Waits for the answer to `slot`: true once answered, false when the
// reader stopped serving or never answered (then abandoned, if still asked).
bool await_answer(SmallSlot& slot, bool (*reader_running)()) {
  long long deadline_ns = small_now_ns() + kSmallAnswerWithinNs;
  for (uint32_t state; (state = slot.state.load(std::memory_order_acquire)) != kSlotAnswered;) {
    const long long before = small_now_ns();
    if (state == kSlotAsked && (!reader_running() || before >= deadline_ns)) {
      uint32_t asked = kSlotAsked;
      if (slot.state.compare_exchange_strong(asked, kSlotAbandoned, std::memory_order_acq_rel)) return false;
      continue;  // taken meanwhile: its answer comes
    }
    // In slices: a wait far longer than its slice was the whole process
    // stopped (SIGSTOP), the reader with it, and does not count.
    const long long left = deadline_ns - before;
    const long long slice = left > 0 && left < kSmallSliceNs ? left : kSmallSliceNs;
    const timespec timeout{static_cast<time_t>(slice / 1'000'000'000), static_cast<long>(slice % 1'000'000'000)};
    slot_futex(slot.state, FUTEX_WAIT_PRIVATE, state, &timeout);
    const long long waited = small_now_ns() - before;
    if (waited > 2 * kSmallSliceNs) deadline_ns += waited - slice;
  }
  return true;
}

// Asks `slot` and waits for its answer: true once answered (the caller
// frees it), false when the reader stopped serving or never answered (the
// slot is left to the reader to free).
bool ask_and_wait(SmallSlot& slot, bool (*reader_running)(), void (*ring)()) {
  slot.state.store(kSlotAsked, std::memory_order_release);
  ring();
  // A lone caller spins for its answer, which comes sooner than it would
  // wake; many at once would take the CPU the reader needs to answer them.
  const bool alone = g_waiting.fetch_add(1, std::memory_order_acq_rel) == 0;
  const long long spin_until = small_now_ns() + kSmallSpinNs;
  for (int i = 0; alone && slot.state.load(std::memory_order_acquire) != kSlotAnswered; ++i) {
    __builtin_ia32_pause();
    if ((i & 63) == 63 && small_now_ns() > spin_until) break;
  }
  const bool answered = await_answer(slot, reader_running);
  g_waiting.fetch_sub(1, std::memory_order_acq_rel);
  return answered;
}

void serve_slot(SmallSlot& slot, bool own_table, int task_dir) {
  slot.private_table = own_table;
  if (!own_table) return;
  if (slot.work != nullptr) {
    errno = 0;
    slot.work_result = slot.work(slot.argument);
    slot.work_errno = errno;
  }
  for (size_t i = 0; i < slot.count; ++i) {
    SmallFile& f = slot.files[i];
    f.result = read_held_task_file(task_dir, f.tid, f.name, slot.bytes + f.offset, f.size);
  }
}

}  // namespace

bool fits_small_request(const lumen_task_file* files, size_t count) {
  if (count > kSmallRequestFiles) return false;
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    if (files[i].name == nullptr || std::strlen(files[i].name) >= sizeof SmallFile::name) return false;
    bytes += files[i].size;
  }
  return bytes <= kSmallRequestBytes;
}

SmallAnswer ask_small_files(lumen_task_file* files, size_t count, bool (*reader_running)(), void (*ring)()) {
  SmallSlot* slot = claim_slot();
  if (slot == nullptr) return SmallAnswer::kNoSlot;
  slot->work = nullptr;
  slot->cpu = -1;
  slot->count = count;
  size_t used = 0;
  for (size_t i = 0; i < count; ++i) {
    SmallFile& f = slot->files[i];
    f.tid = files[i].tid;
    std::snprintf(f.name, sizeof f.name, "%s", files[i].name);
    f.size = files[i].size;
    f.offset = used;
    f.result = -1;
    used += f.size;
  }
  if (!ask_and_wait(*slot, reader_running, ring)) return SmallAnswer::kNoReader;
  const bool answered = slot->private_table;
  for (size_t i = 0; answered && i < count; ++i) {
    const SmallFile& f = slot->files[i];
    files[i].bytes = f.result;
    if (f.result > 0) std::memcpy(files[i].buffer, slot->bytes + f.offset, static_cast<size_t>(f.result));
  }
  slot->state.store(kSlotFree, std::memory_order_release);
  return answered ? SmallAnswer::kDone : SmallAnswer::kNoPrivateTable;
}

SmallAnswer ask_small_work(long (*work)(void*), void* argument, long* result, int* error,
                           bool (*reader_running)(), void (*ring)()) {
  SmallSlot* slot = claim_slot();
  if (slot == nullptr) return SmallAnswer::kNoSlot;
  slot->work = work;
  slot->argument = argument;
  slot->cpu = asking_cpu();
  slot->work_result = -1;
  slot->work_errno = ENOTSUP;
  slot->count = 0;
  if (!ask_and_wait(*slot, reader_running, ring)) return SmallAnswer::kNoReader;
  const bool answered = slot->private_table;
  *result = slot->work_result;
  *error = slot->work_errno;
  slot->state.store(kSlotFree, std::memory_order_release);
  return answered ? SmallAnswer::kDone : SmallAnswer::kNoPrivateTable;
}

namespace {

// Serves `slot` if it is still asked.
void serve_if_asked(SmallSlot& slot, bool own_table, int task_dir) {
  uint32_t state = kSlotAsked;
  if (!slot.state.compare_exchange_strong(state, kSlotServing, std::memory_order_acq_rel)) return;
  serve_slot(slot, own_table, task_dir);
  slot.state.store(kSlotAnswered, std::memory_order_release);
  slot_futex(slot.state, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

}  // namespace

void serve_small_requests(bool own_table, int task_dir) {
  // Work asked from another CPU waits while the reader serves what it can
  // from where it is. Then, if several requests wait on the CPU of the
  // first of them, it moves there and serves them (a move costs about
  // what it saves on one); a lone one is served from here; and so on,
  // until none is left.
  constexpr int kWorthAMove = 2;
  int here = asking_cpu();
  cpu_set_t refused;  // CPUs it may not move to: their work is served from here
  CPU_ZERO(&refused);
  for (;;) {
    SmallSlot* first_elsewhere = nullptr;
    int elsewhere = -1, waiting = 0;
    for (SmallSlot& slot : g_slots) {
      uint32_t state = slot.state.load(std::memory_order_acquire);
      if (state == kSlotAbandoned) {
        slot.state.compare_exchange_strong(state, kSlotFree, std::memory_order_acq_rel);
        continue;
      }
      if (state != kSlotAsked) continue;
      const int cpu = slot.cpu;
      if (own_table && slot.work != nullptr && cpu >= 0 && cpu < CPU_SETSIZE && cpu != here &&
          !CPU_ISSET(cpu, &refused)) {
        if (elsewhere < 0) elsewhere = cpu, first_elsewhere = &slot;
        waiting += cpu == elsewhere ? 1 : 0;
        continue;
      }
      serve_if_asked(slot, own_table, task_dir);
    }
    if (elsewhere < 0) break;
    if (waiting < kWorthAMove)
      serve_if_asked(*first_elsewhere, own_table, task_dir);
    else if (move_reader_to(elsewhere))
      here = elsewhere;
    else
      CPU_SET(elsewhere, &refused);
  }
  let_reader_roam();
}

void wake_small_requests() {
  for (SmallSlot& slot : g_slots) slot_futex(slot.state, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

void forget_small_requests() {
  for (SmallSlot& slot : g_slots) slot.state.store(kSlotFree, std::memory_order_relaxed);
  g_waiting.store(0, std::memory_order_relaxed);
}

}  // namespace lumen::collector
