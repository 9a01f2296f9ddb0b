#define UNW_LOCAL_ONLY
#include "stack_capture.h"

#include <libunwind.h>
#include <lumen/record_format.h>

#include <fcntl.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ucontext.h>

#include <atomic>
#include <cstring>
#include <iterator>

#include "object_snapshot.h"
#include "raw_syscalls.h"
#include "runtime_fds.h"
#include "stack_table.h"
#include "thread_state.h"

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

}  // namespace

namespace {

constexpr int kScannedFds = 1024;

void open_fds(bool (&open)[kScannedFds]) {
  for (int fd = 0; fd < kScannedFds; ++fd) open[fd] = syscall(SYS_fcntl, fd, F_GETFD) != -1;
}

// libunwind validates addresses through a pipe it opens once, at its first
// use, and reads it before each check. Had the pipe taken a standard stream
// the target had closed (a daemon's fd 0), the target's later dup2 onto
// that number would leave libunwind blocked reading the target's stdin. So
// libunwind is initialised here with 0-2 held open, and its pipe is
// protected from the target's close like the runtime's own descriptors.
void initialise_unwinder_away_from_standard_streams() {
  int placeholders[3];
  int held = 0;
  for (int fd = 0; fd < 3; ++fd)
    if (syscall(SYS_fcntl, fd, F_GETFD) == -1) placeholders[held++] = raw_open("/dev/null", O_RDONLY | O_CLOEXEC);
  static bool before[kScannedFds], after[kScannedFds];
  open_fds(before);
  unw_context_t context;
  unw_cursor_t cursor;
  unw_getcontext(&context);
  unw_init_local(&cursor, &context);
  open_fds(after);
  for (int fd = 3; fd < kScannedFds; ++fd)
    if (after[fd] && !before[fd]) protect_runtime_fd(fd);
  for (int i = 0; i < held; ++i)
    if (placeholders[i] >= 0) syscall(SYS_close, placeholders[i]);
}

}  // namespace

void stack_capture_init() {
  initialise_unwinder_away_from_standard_streams();
  stack_capture_use_global_cache();
  object_snapshot_refresh();
  stack_capture_exclude_object_of(reinterpret_cast<const void*>(&stack_capture_init));
}

void stack_capture_use_global_cache() { unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_GLOBAL); }

void stack_capture_exclude_object_of(const void* address) {
  RangeQuery query{reinterpret_cast<uint64_t>(address), {0, 0}};
  dl_iterate_phdr(find_object_range, &query);
  const int count = g_excluded_count.load(std::memory_order_relaxed);
  if (query.found.end == 0 || count >= kMaxExcluded || excluded(query.address)) return;
  g_excluded[count] = query.found;
  g_excluded_count.store(count + 1, std::memory_order_release);
}

namespace {

// Keeps the frames that are not the collector's, from `first` on, and
// interns them. `flags` may already say the leaf is a return address.
uint64_t intern_frames(void* const* frames, int count, int first, uint32_t flags) {
  uint64_t pcs[LUMEN_MAX_STACK_DEPTH];
  uint32_t depth = 0;
  for (int i = first; i < count; ++i) {
    const auto ip = reinterpret_cast<uint64_t>(frames[i]);
    if (ip == 0) break;
    if (excluded(ip)) {
      // The frame after a left-out one is a return address, leaf or not.
      if (depth == 0) flags |= LUMEN_STACK_LEAF_IS_RETURN;
      continue;
    }
    if (depth == LUMEN_MAX_STACK_DEPTH) {
      flags |= LUMEN_STACK_TRUNCATED;
      break;
    }
    pcs[depth++] = ip;
  }
  if (depth == 0) return LUMEN_NO_STACK;
  return stack_table_intern(pcs, depth, flags);
}

// The slow path for a signal: libunwind steps from the handler's context.
uint64_t capture_from_context(void* ucontext) {
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
  return intern_frames(frames, count, 0, 0);
}

}  // namespace

// unw_backtrace walks with libunwind's per-thread trace cache, several times
// faster than stepping a cursor. From a handler it walks through the signal
// frame; the interrupted stack starts where the interrupted PC appears.
// noinline keeps "the caller of the caller" meaningful for interposers.
namespace {

// A depth, not a flag: a handler may unwind while the code it interrupted
// was unwinding too.
__attribute__((tls_model("initial-exec"))) thread_local int t_unwinding_depth;

struct UnwindingScope {
  UnwindingScope() { ++t_unwinding_depth; }
  ~UnwindingScope() { --t_unwinding_depth; }
};

}  // namespace

bool unwinding_now() { return t_unwinding_depth > 0; }

__attribute__((noinline)) uint64_t capture_stack(void* ucontext, int skip) {
  // Outside a profiling handler, and before libunwind holds any lock of its
  // own, is where waiting for the linker's lock is harmless.
  if (ucontext == nullptr) object_snapshot_refresh_if_missed();
  const UnwindingScope unwinding;
  // libunwind maps memory for its caches while holding its own lock; from a
  // signal handler that mmap must not reach a tracing interposer, which
  // would unwind again into the same lock.
  const RuntimeGuard in_runtime;
  void* frames[LUMEN_MAX_STACK_DEPTH + 16];
  const int count = unw_backtrace(frames, static_cast<int>(std::size(frames)));
  if (ucontext == nullptr) {
    // frames[0] is in this function, frames[1] in our caller; then `skip`.
    return intern_frames(frames, count, 2 + skip, LUMEN_STACK_LEAF_IS_RETURN);
  }
  const auto interrupted = static_cast<uint64_t>(static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
  for (int i = 0; i < count; ++i)
    if (reinterpret_cast<uint64_t>(frames[i]) == interrupted) return intern_frames(frames, count, i, 0);
  return capture_from_context(ucontext);
}

}  // namespace lumen::collector
