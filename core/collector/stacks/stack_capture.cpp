#define UNW_LOCAL_ONLY
#include "stacks/stack_capture.h"
#include "signals/kernel_sigaction.h"

#include <libunwind.h>
#include <lumen/record_format.h>

#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ucontext.h>

#include <atomic>
#include <cstring>
#include <iterator>

#include "stacks/object_snapshot.h"
#include "recording/raw_syscalls.h"
#include "stacks/reusable_capture.h"
#include "recording/runtime_fds.h"
#include "stacks/stack_table.h"
#include "threads/program_thread_state.h"
#include "time/tsc_clock.h"

// The generic (remote) library's entry, for where its code lies.
extern "C" int _Ux86_64_init_remote(unw_cursor_t*, unw_addr_space_t, void*);

namespace lumen::collector {

namespace {

struct AddressRange {
  uint64_t start;
  uint64_t end;
};

constexpr int kMaxExcluded = 32;
AddressRange g_excluded[kMaxExcluded];
std::atomic<int> g_excluded_count{0};

bool excluded(uint64_t pc) {
  const int count = g_excluded_count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i)
    if (pc >= g_excluded[i].start && pc < g_excluded[i].end) return true;
  return false;
}

// libunwind's code: the local library the runtime unwinds with, and the
// generic one blocked threads are unwound with. Set once at start.
AddressRange g_unwinder[2];

bool in_unwinder(uint64_t pc) {
  for (const AddressRange& range : g_unwinder)
    if (pc >= range.start && pc < range.end) return true;
  return false;
}

// The C library's signal trampoline (__restore_rt, the sa_restorer its
// sigaction gives every handler), read from the kernel's record of any
// handler installed through it; 0 until one is found. [signal-safe]
std::atomic<uint64_t> g_trampoline{0};

uint64_t signal_trampoline() {
  uint64_t found = g_trampoline.load(std::memory_order_relaxed);
  if (found != 0) return found;
  for (int signal = 1; signal <= 64 && found == 0; ++signal) {
    KernelSigaction action;
    if (read_kernel_sigaction(signal, action) && (action.flags & kSaRestorer) != 0) found = action.restorer;
  }
  g_trampoline.store(found, std::memory_order_relaxed);
  return found;
}

struct RangeQuery {
  uint64_t address;
  AddressRange found;
};

int find_object_range(dl_phdr_info* info, size_t, void* data) {
  auto* query = static_cast<RangeQuery*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const uint64_t start = info->dlpi_addr + ph.p_vaddr;
    if (query->address >= start && query->address < start + ph.p_memsz) {
      query->found = {start, start + ph.p_memsz};
      return 1;
    }
  }
  return 0;
}

AddressRange object_range_of(const void* address) {
  RangeQuery query{reinterpret_cast<uint64_t>(address), {0, 0}};
  dl_iterate_phdr(find_object_range, &query);
  return query.found;
}

}  // namespace

namespace {
__attribute__((tls_model("initial-exec"))) thread_local int t_unwinding_depth;
// stack_capture_unwinder_loaded_late: no unw_backtrace from a handler.
std::atomic<bool> g_unwinder_loaded_late{false};
}

void stack_capture_init() {
  {
    // libunwind opens its validation pipe on first use; as the runtime's
    // unwinding, the pipe2 interposer moves it to the runtime's numbers.
    ++t_unwinding_depth;
    unw_context_t context;
    unw_cursor_t cursor;
    unw_getcontext(&context);
    unw_init_local(&cursor, &context);
    --t_unwinding_depth;
  }
  g_unwinder[0] = object_range_of(reinterpret_cast<const void*>(&unw_backtrace));
  g_unwinder[1] = object_range_of(reinterpret_cast<const void*>(&_Ux86_64_init_remote));
  stack_capture_use_global_cache();
  reusable_capture_init();
  object_snapshot_refresh();
  stack_capture_exclude_object_of(reinterpret_cast<const void*>(&stack_capture_init));
}

void stack_capture_use_global_cache() { unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_GLOBAL); }

void stack_capture_exclude_object_of(const void* address) {
  const AddressRange found = object_range_of(address);
  const int count = g_excluded_count.load(std::memory_order_relaxed);
  if (found.end == 0 || count >= kMaxExcluded || excluded(reinterpret_cast<uint64_t>(address))) return;
  g_excluded[count] = found;
  g_excluded_count.store(count + 1, std::memory_order_release);
}

namespace {

std::atomic<lumen_frame_provider> g_frame_provider{nullptr};
static_assert(std::atomic<lumen_frame_provider>::is_always_lock_free, "read in handlers");

// How many of `pcs`, from the leaf, lie in the code of a loaded object (the
// snapshot: no lock is taken).
int frames_in_objects(const uint64_t* pcs, uint32_t depth) {
  uint32_t i = 0;
  while (i < depth && object_snapshot_holds_code(pcs[i])) ++i;
  return static_cast<int>(i);
}

}  // namespace

bool stack_capture_set_frame_provider(lumen_frame_provider provider) {
  lumen_frame_provider none = nullptr;
  if (provider == nullptr) {
    g_frame_provider.store(nullptr, std::memory_order_release);
    return true;
  }
  return g_frame_provider.compare_exchange_strong(none, provider, std::memory_order_acq_rel) || none == provider;
}

namespace {

// Keeps the frames that are not the collector's, from `first` on, and
// interns them. `flags` may already say the leaf is a return address. When
// the signal interrupted the collector's own work (`in_collector_work`), the
// frames leafward of the collector's first frame are what the collector
// called (libunwind, a system call): they are left out too, so that
// neither appears as a callee of the program's code. libunwind calls back
// into the collector (its dl_iterate_phdr, answered from the snapshot):
// the collector's frame that counts is then the one that called
// libunwind, the frame after libunwind's outermost.
// With a signal's `ucontext`, the frame provider (if any) rewrites them.
// Frames a capture_stack_under puts above the stack of its ucontext (the
// kernel's, of a sample taken in the kernel): only a capture of that same
// ucontext takes them, never a handler nested in between.
struct LeafFrames {
  const void* ucontext;
  const uint64_t* pcs;
  uint32_t count;
};
__attribute__((tls_model("initial-exec"))) thread_local LeafFrames t_leaf_frames;

// Puts the leaf frames meant for `ucontext` above `pcs[0..depth)`, in
// place (room for LUMEN_MAX_STACK_DEPTH), and returns the new depth. The
// user frames' leaf, now below kernel frames, reads as the return address
// it is (the instruction after the system call, or a faulting one: the
// same function either way).
uint32_t prepend_leaf_frames(const void* ucontext, uint64_t* pcs, uint32_t depth, uint32_t& flags) {
  const LeafFrames leaf = t_leaf_frames;
  if (ucontext == nullptr || leaf.ucontext != ucontext || leaf.count == 0) return depth;
  const uint32_t added = leaf.count < LUMEN_MAX_STACK_DEPTH ? leaf.count : LUMEN_MAX_STACK_DEPTH;
  uint32_t kept = depth;
  if (kept > LUMEN_MAX_STACK_DEPTH - added) {
    kept = LUMEN_MAX_STACK_DEPTH - added;
    flags |= LUMEN_STACK_TRUNCATED;
  }
  std::memmove(pcs + added, pcs, kept * sizeof *pcs);
  std::memcpy(pcs, leaf.pcs, added * sizeof *pcs);
  flags &= ~static_cast<uint32_t>(LUMEN_STACK_LEAF_IS_RETURN);
  return added + kept;
}

uint64_t intern_frames(void* const* frames, int count, int first, uint32_t flags, bool in_collector_work = false,
                       void* ucontext = nullptr) {
  uint64_t pcs[LUMEN_MAX_STACK_DEPTH];
  uint32_t depth = 0;
  if (in_collector_work) {
    int collector = first;
    while (collector < count && frames[collector] != nullptr &&
           !excluded(reinterpret_cast<uint64_t>(frames[collector])))
      ++collector;
    if (collector < count && frames[collector] != nullptr) {
      first = collector;
      for (int i = count - 2; i > collector; --i)
        if (in_unwinder(reinterpret_cast<uint64_t>(frames[i])) && frames[i + 1] != nullptr &&
            excluded(reinterpret_cast<uint64_t>(frames[i + 1]))) {
          first = i + 1;
          break;
        }
    }
  }
  bool leaf_left_out = false;
  for (int i = first; i < count; ++i) {
    const auto ip = reinterpret_cast<uint64_t>(frames[i]);
    if (ip == 0) break;
    if (excluded(ip)) {
      // The frame after a left-out one is a return address, leaf or not.
      if (depth == 0) flags |= LUMEN_STACK_LEAF_IS_RETURN, leaf_left_out = true;
      continue;
    }
    // The collector's own work in a signal handler (its clock sample) was
    // interrupted: the event (a page fault of its buffers, counted in the
    // thread's rusage) is the interrupted function's, not the trampoline's
    // that ran the handler; that function's frame is the interrupted PC.
    if (depth == 0 && leaf_left_out && ip >= 8 && (ip == signal_trampoline() || ip - 1 == signal_trampoline())) {
      flags &= ~static_cast<uint32_t>(LUMEN_STACK_LEAF_IS_RETURN);
      leaf_left_out = false;
      continue;
    }
    if (depth == LUMEN_MAX_STACK_DEPTH) {
      flags |= LUMEN_STACK_TRUNCATED;
      break;
    }
    pcs[depth++] = ip;
  }
  const lumen_frame_provider provider = g_frame_provider.load(std::memory_order_acquire);
  if (ucontext != nullptr && provider != nullptr) {
    uint64_t provided[LUMEN_MAX_STACK_DEPTH];
    uint32_t provided_flags = flags;
    const int n = provider(ucontext, pcs, static_cast<int>(depth), frames_in_objects(pcs, depth), provided,
                           static_cast<int>(LUMEN_MAX_STACK_DEPTH), &provided_flags);
    if (n == 0) return LUMEN_NO_STACK;
    if (n > 0) {
      const uint32_t total = prepend_leaf_frames(ucontext, provided, static_cast<uint32_t>(n), provided_flags);
      return stack_table_intern(provided, total, provided_flags);
    }
  }
  depth = prepend_leaf_frames(ucontext, pcs, depth, flags);
  if (depth == 0) return LUMEN_NO_STACK;
  return stack_table_intern(pcs, depth, flags);
}

// Keeps the calling thread's latest stack for an off-CPU sampler.
uint64_t remembered(uint64_t stack) {
  if (stack != LUMEN_NO_STACK) current_thread().latest.stack.store(stack, std::memory_order_relaxed);
  return stack;
}

// The same for a stack a profiling signal interrupted: also the thread's
// latest sample of its running code, stamped. The time is stored before
// the stack, both by this thread; a reader racing the two stores (a window
// of nanoseconds in a sampling interval) may pair a stack with the
// previous sample's time.
uint64_t remembered_sample(uint64_t stack) {
  if (stack == LUMEN_NO_STACK) return stack;
  ThreadState::LatestStacks& latest = current_thread().latest;
  latest.sample_ns.store(tsc_now_ns(), std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_release);
  latest.sample_stack.store(stack, std::memory_order_relaxed);
  return remembered(stack);
}

// The slow path for a signal: libunwind steps from the handler's context.
uint64_t capture_from_context(void* ucontext, bool in_collector_work) {
  unw_context_t context;
  unw_cursor_t cursor;
  // On x86-64 libunwind's context is a ucontext_t: the handler's own.
  std::memcpy(&context, ucontext, sizeof context);
  if (unw_init_local2(&cursor, &context, UNW_INIT_SIGNAL_FRAME) < 0) return LUMEN_NO_STACK;
  void* frames[LUMEN_MAX_STACK_DEPTH + 1];
  int count = 0;
  do {
    unw_word_t ip = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
    frames[count++] = reinterpret_cast<void*>(ip);
  } while (count < static_cast<int>(LUMEN_MAX_STACK_DEPTH) + 1 && unw_step(&cursor) > 0);
  return intern_frames(frames, count, 0, 0, in_collector_work, ucontext);
}

}  // namespace

// unw_backtrace walks with libunwind's per-thread trace cache, several times
// faster than stepping a cursor. From a handler it walks through the signal
// frame; the interrupted stack starts where the interrupted PC appears.
// noinline keeps "the caller of the caller" meaningful for interposers.
// t_unwinding_depth is a depth, not a flag: a handler may unwind while the
// code it interrupted was unwinding too.
UnwindingScope::UnwindingScope() { ++t_unwinding_depth; }
UnwindingScope::~UnwindingScope() { --t_unwinding_depth; }

bool unwinding_now() { return t_unwinding_depth > 0; }

namespace {

// Threads inside libunwind now, and whether a fork waits for them to leave.
// Counted in stripes of a cache line each, a thread in the one its
// thread-local storage's address picks: every capture counts itself in and
// out, and one counter shared by every thread would move between the
// processors twice a capture. A fork sums them. (Each thread counts in and
// then reads g_fork_pending, the fork sets it and then sums, all seq_cst:
// one of the two sees the other.)
constexpr size_t kUnwinderStripes = 64;
struct alignas(64) UnwinderStripe {
  std::atomic<int> count;
};
UnwinderStripe g_unwinders[kUnwinderStripes];
std::atomic<bool> g_fork_pending{false};
std::atomic<uint32_t> g_forking_thread{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free, "used in handlers");

__attribute__((tls_model("initial-exec"))) thread_local int t_inside_unwinder;

std::atomic<int>& own_stripe() {
  const auto at = reinterpret_cast<uintptr_t>(&t_inside_unwinder);
  return g_unwinders[((at >> 6) * 0x9e3779b97f4a7c15ull >> 58) % kUnwinderStripes].count;
}

int unwinders_inside() {
  int inside = 0;
  for (const UnwinderStripe& stripe : g_unwinders) inside += stripe.count.load(std::memory_order_seq_cst);
  return inside;
}

constexpr uint64_t kMaxWaitForForkNs = 20'000'000;

uint64_t now_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return uint64_t(now.tv_sec) * 1'000'000'000u + uint64_t(now.tv_nsec);
}

// Counts the caller in; false when it must not unwind (a fork is pending
// and the caller may not, or could not, wait for it).
bool enter_unwinder(bool may_wait) {
  const uint32_t self = current_tid();
  uint64_t waited_since = 0;
  for (;;) {
    own_stripe().fetch_add(1, std::memory_order_seq_cst);
    // A nested capture (a handler over this thread's own, counted in) is
    // waited for with its outer one.
    if (!g_fork_pending.load(std::memory_order_seq_cst) || t_inside_unwinder > 0 ||
        g_forking_thread.load(std::memory_order_relaxed) == self) {
      ++t_inside_unwinder;
      return true;
    }
    own_stripe().fetch_sub(1, std::memory_order_seq_cst);
    if (!may_wait) return false;
    if (waited_since == 0) waited_since = now_ns();
    if (now_ns() - waited_since > kMaxWaitForForkNs) return false;
    while (g_fork_pending.load(std::memory_order_acquire) && now_ns() - waited_since <= kMaxWaitForForkNs)
      sched_yield();
  }
}

void leave_unwinder() {
  --t_inside_unwinder;
  own_stripe().fetch_sub(1, std::memory_order_seq_cst);
}

}  // namespace

void unwinder_fork_prepare() {
  g_forking_thread.store(current_tid(), std::memory_order_relaxed);
  g_fork_pending.store(true, std::memory_order_seq_cst);
  // This thread's own count, when it forks from a handler over a capture.
  const int own = t_inside_unwinder;
  // Unwinding takes microseconds; a thread that stays inside for a second
  // is stopped (a debugger, SIGSTOP), and the fork goes ahead without it.
  const uint64_t since = now_ns();
  while (unwinders_inside() > own && now_ns() - since < 1'000'000'000) sched_yield();
}

void unwinder_fork_parent() {
  g_forking_thread.store(0, std::memory_order_relaxed);
  g_fork_pending.store(false, std::memory_order_seq_cst);
}

void unwinder_fork_child() {
  // Only the forking thread goes on; the others' counts went with them.
  for (UnwinderStripe& stripe : g_unwinders) stripe.count.store(0, std::memory_order_seq_cst);
  own_stripe().store(t_inside_unwinder, std::memory_order_seq_cst);
  unwinder_fork_parent();
}


__attribute__((noinline)) uint64_t capture_stack(void* ucontext, int skip) {
  const bool interrupted_collector_work = ucontext != nullptr && t_collector_work > 0;
  const bool step_a_cursor =
      interrupted_collector_work ||
      (ucontext != nullptr && g_unwinder_loaded_late.load(std::memory_order_relaxed));
  const CollectorWork collector_work;
  // Outside a profiling handler, and before libunwind holds any lock of its
  // own, is where waiting for the linker's lock is harmless.
  if (ucontext == nullptr) object_snapshot_refresh_if_missed();
  const UnwindingScope unwinding;
  if (!enter_unwinder(ucontext == nullptr)) return LUMEN_NO_STACK;
  struct Leave {
    ~Leave() { leave_unwinder(); }
  } leave;
  // libunwind maps memory for its caches while holding its own lock; from a
  // signal handler that mmap must not reach a tracing interposer, which
  // would unwind again into the same lock.
  const RuntimeGuard in_runtime;
  // A handler over the collector's own capture may have interrupted
  // libunwind's first unw_backtrace, which sets up its trace cache under a
  // pthread_once: unw_backtrace here would wait on that once for ever.
  // Stepping a cursor from the signal's context takes no such once, nor
  // the thread-local storage a late-loaded libunwind would allocate here.
  if (step_a_cursor) return remembered_sample(capture_from_context(ucontext, interrupted_collector_work));
  void* frames[LUMEN_MAX_STACK_DEPTH + 16];
  const int count = unw_backtrace(frames, static_cast<int>(std::size(frames)));
  if (ucontext == nullptr) {
    // A traced call. A managed runtime's frame provider adds its frames
    // here too (the Java methods above a JNI method's malloc or a JVM
    // thread's wait), from this thread's own context.
    ucontext_t here;
    void* const provider_context =
        g_frame_provider.load(std::memory_order_acquire) != nullptr && getcontext(&here) == 0 ? &here : nullptr;
    // frames[0] is in this function, frames[1] in our caller; then `skip`.
    return remembered(
        intern_frames(frames, count, 2 + skip, LUMEN_STACK_LEAF_IS_RETURN, false, provider_context));
  }
  const auto interrupted = static_cast<uint64_t>(static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
  for (int i = 0; i < count; ++i)
    if (reinterpret_cast<uint64_t>(frames[i]) == interrupted)
      return remembered_sample(intern_frames(frames, count, i, 0, interrupted_collector_work, ucontext));
  return remembered_sample(capture_from_context(ucontext, interrupted_collector_work));
}

void stack_capture_unwinder_loaded_late() { g_unwinder_loaded_late.store(true, std::memory_order_relaxed); }

uint64_t capture_stack_under(void* ucontext, const uint64_t* leaf_pcs, uint32_t leaf_count) {
  const LeafFrames outer = t_leaf_frames;
  t_leaf_frames = {ucontext, leaf_pcs, leaf_count};
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const uint64_t stack = capture_stack(ucontext, 0);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_leaf_frames = outer;
  return stack;
}

uint64_t intern_traced_call_frames(const uint64_t* pcs, int count, int first) {
  void* frames[LUMEN_MAX_STACK_DEPTH + 16];
  if (count > static_cast<int>(std::size(frames))) count = static_cast<int>(std::size(frames));
  for (int i = 0; i < count; ++i) frames[i] = reinterpret_cast<void*>(pcs[i]);
  return remembered(intern_frames(frames, count, first, LUMEN_STACK_LEAF_IS_RETURN));
}

uint64_t remember_latest_stack(uint64_t stack) { return remembered(stack); }

bool stack_capture_has_frame_provider() { return g_frame_provider.load(std::memory_order_acquire) != nullptr; }

int stack_capture_excluded_objects() { return g_excluded_count.load(std::memory_order_acquire); }

uint64_t intern_unwound_stack(const uint64_t* pcs, int count, int unwinding_at) {
  void* frames[LUMEN_MAX_STACK_DEPTH + 1];
  if (count > static_cast<int>(LUMEN_MAX_STACK_DEPTH) + 1) count = static_cast<int>(LUMEN_MAX_STACK_DEPTH) + 1;
  int first = 0;
  if (unwinding_at >= 0)
    for (int i = unwinding_at + 1; i < count; ++i)
      if (excluded(pcs[i])) {
        first = i;
        break;
      }
  for (int i = 0; i < count; ++i) frames[i] = reinterpret_cast<void*>(pcs[i]);
  return intern_frames(frames, count, first, 0);
}

UnwinderUse::UnwinderUse() : entered_(enter_unwinder(true)) {}
UnwinderUse::~UnwinderUse() {
  if (entered_) leave_unwinder();
}

}  // namespace lumen::collector
