// libunwind's generic (remote) interface over this very thread, through
// accessors that record what it reads (see reusable_capture.h).
#include "stacks/reusable_capture.h"

#include <libunwind.h>
#include <pthread.h>
#include <lumen/record_format.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "stacks/object_snapshot.h"
#include "stacks/snapshot_unwind_tables.h"
#include "stacks/stack_capture.h"
#include "stacks/stack_table.h"
#include "threads/program_thread_state.h"

extern "C" int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t, unw_word_t, unw_dyn_info_t*, unw_proc_info_t*,
                                                  int, void*);
extern "C" void* __libc_stack_end;  // the main thread's initial stack pointer (glibc)

namespace lumen::collector {

namespace {

constexpr int kRegisters = UNW_X86_64_RIP + 1;  // the general registers and the PC, in libunwind's numbers
constexpr uint32_t kFilled = 0x52455553;        // the rest of the cache may be trusted
constexpr uint64_t kPage = 4096;
constexpr uint64_t kMaxStackSpan = 8u << 20;  // a thread's stack, from the capture's SP up to its top

// A site whose unwindings keep differing is captured plainly for a while:
// unwinding through the accessors, with no cache of libunwind's, costs
// some 60 plain captures (callgrind: about 95,000 instructions for a
// libomp region's call site, a plain capture 1,600).
constexpr uint32_t kUnwoundBeforePlain = 4;
constexpr uint32_t kPlainCaptures = 1020;

constexpr int kMaxWords = 114;  // what fills lumen_capture_cache's 2 KiB after the header

struct Layout {
  uint32_t state;  // kFilled, or anything else while being filled
  uint32_t tid;    // the thread that filled it: a forked child's differs
  uint32_t register_mask;
  uint32_t word_count;
  uint32_t excluded_objects;
  uint32_t unwound_in_a_row;
  uint32_t plain_left;
  uint32_t unused;
  uint64_t stack;
  uint64_t snapshot_generation;
  uint64_t table_generation;
  uint64_t map_change_ns;
  uint64_t reused;
  uint64_t unwound;
  uint64_t registers[kRegisters];
  uint64_t words[kMaxWords][2];  // address, value
};
static_assert(sizeof(Layout) <= sizeof(lumen_capture_cache) &&
                  sizeof(lumen_capture_cache) - sizeof(Layout) < 2 * sizeof(uint64_t),
              "the SDK's size, used whole");

unw_addr_space_t g_space = nullptr;
const volatile uint64_t* g_map_change_ns = nullptr;

uint64_t map_change_ns() { return g_map_change_ns != nullptr ? *g_map_change_ns : 0; }

// Reads that may fault come here: process_vm_readv on this process fails
// with EFAULT where a plain load would take SIGSEGV.
bool checked_read(uint64_t address, void* out, size_t bytes) {
  iovec local{out, bytes};
  iovec remote{reinterpret_cast<void*>(address), bytes};
  return process_vm_readv(static_cast<pid_t>(syscall(SYS_getpid)), &local, 1, &remote, 1, 0) ==
         static_cast<ssize_t>(bytes);
}

bool read_constant(void*, uint64_t address, void* out, size_t bytes) { return checked_read(address, out, bytes); }

// One unwinding: the registers it starts from, and its read set so far.
struct Fill {
  const uint64_t* registers;
  Layout* cache;
  uint64_t sp;
  uint64_t stack_top;      // this thread's stack ends here (0: SP is not on it)
  uint64_t checked_end;    // [page of sp, checked_end) is mapped: read directly
  uint64_t constant_start, constant_end;  // the read-only segment of the latest such read
  bool reusable;           // every read was recorded
};

void record_word(Fill& fill, uint64_t address, uint64_t value) {
  Layout& cache = *fill.cache;
  if (!fill.reusable) return;
  // A word read again (a personality pointer, once a frame) is compared
  // once; read again with another value, the unwinding saw a change under
  // it, which no later comparison could replay: not reused.
  for (uint32_t i = 0; i < cache.word_count; ++i)
    if (cache.words[i][0] == address) {
      if (cache.words[i][1] != value) fill.reusable = false;
      return;
    }
  if (static_cast<int>(cache.word_count) == kMaxWords) {
    fill.reusable = false;
    return;
  }
  cache.words[cache.word_count][0] = address;
  cache.words[cache.word_count][1] = value;
  ++cache.word_count;
}

// Whether [address, address + 8) lies on this thread's stack above the SP,
// every page up to it mapped (checked page by page the first time).
bool on_own_stack(Fill& fill, uint64_t address) {
  while (address + sizeof(uint64_t) > fill.checked_end) {
    uint64_t probe;
    if (!checked_read(fill.checked_end, &probe, sizeof probe)) return false;
    fill.checked_end += kPage;
  }
  return true;
}

int access_mem(unw_addr_space_t, unw_word_t address, unw_word_t* value, int write, void* arg) {
  if (write) return -UNW_EINVAL;
  auto& fill = *static_cast<Fill*>(arg);
  const uint64_t end = address + sizeof *value;
  if (address >= fill.constant_start && end <= fill.constant_end) {
    std::memcpy(value, reinterpret_cast<const void*>(address), sizeof *value);
    return 0;
  }
  if (address >= fill.sp && end <= fill.stack_top) {
    if (on_own_stack(fill, address)) {
      std::memcpy(value, reinterpret_cast<const void*>(address), sizeof *value);
      record_word(fill, address, *value);
      return 0;
    }
  } else {
    uint64_t start = 0, stop = 0;
    bool writable = false;
    if (object_snapshot_segment(address, &start, &stop, &writable) && end <= stop) {
      std::memcpy(value, reinterpret_cast<const void*>(address), sizeof *value);
      // A writable segment (a CIE's personality routine, read through its
      // GOT-like slot) is mapped while the snapshot is the same: recorded.
      if (writable)
        record_word(fill, address, *value);
      else
        fill.constant_start = start, fill.constant_end = stop;
      return 0;
    }
  }
  // Elsewhere (another mapping, generated code): read checked, and not
  // reused, since reading it again without a system call could fault.
  fill.reusable = false;
  return checked_read(address, value, sizeof *value) ? 0 : -UNW_EINVAL;
}

int access_reg(unw_addr_space_t, unw_regnum_t reg, unw_word_t* value, int write, void* arg) {
  if (write) return -UNW_EREADONLYREG;
  if (reg < 0 || reg >= kRegisters) return -UNW_EBADREG;
  auto& fill = *static_cast<Fill*>(arg);
  *value = fill.registers[reg];
  fill.cache->registers[reg] = *value;
  fill.cache->register_mask |= 1u << reg;
  return 0;
}

int access_fpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t*, int, void*) { return -UNW_EBADREG; }
int resume(unw_addr_space_t, unw_cursor_t*, void*) { return -UNW_EINVAL; }
int get_proc_name(unw_addr_space_t, unw_word_t, char*, size_t, unw_word_t*, void*) { return -UNW_ENOINFO; }
int get_dyn_info_list_addr(unw_addr_space_t, unw_word_t*, void*) { return -UNW_ENOINFO; }
void put_unwind_info(unw_addr_space_t, unw_proc_info_t*, void*) {}

// The table's header is read checked: a table is in read-only memory, but
// an object may be unloaded under a stale snapshot. libunwind reads the
// table itself through access_mem.
int find_proc_info(unw_addr_space_t space, unw_word_t ip, unw_proc_info_t* info, int need_unwind_info, void* arg) {
  unw_dyn_info_t table;
  if (!snapshot_unwind_table(ip, &table, read_constant, nullptr)) return -UNW_ENOINFO;
  return UNW_OBJ(dwarf_search_unwind_table)(space, ip, &table, info, need_unwind_info, arg);
}

unw_accessors_t g_accessors = {find_proc_info, put_unwind_info, get_dyn_info_list_addr, access_mem,
                               access_reg,     access_fpreg,    resume,                 get_proc_name};

// The top of the calling thread's stack (everything from its SP up to here
// is its own, mapped while it runs): the main thread's initial stack
// pointer; glibc puts a thread's descriptor at the top of its stack block.
uint64_t own_stack_top(uint64_t sp) {
  const bool main_thread = current_tid() == static_cast<uint32_t>(syscall(SYS_getpid));
  const uint64_t top = main_thread ? reinterpret_cast<uint64_t>(__libc_stack_end)
                                   : reinterpret_cast<uint64_t>(pthread_self());
  return sp < top && top - sp <= kMaxStackSpan ? top : 0;
}

// Unwinds from `registers` (the capturing function's own, pcs[0] in it)
// through the recording accessors, interns the stack as capture_stack
// would, and leaves `cache` filled when the read set could be kept whole.
// Never inlined: its frame (the frames, libunwind's cursor) is no cost of a
// reuse.
__attribute__((noinline)) uint64_t unwind_and_fill(Layout& cache, const uint64_t* registers, int skip) {
  cache.state = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  ++cache.unwound;
  cache.register_mask = 0;
  cache.word_count = 0;
  cache.snapshot_generation = object_snapshot_generation();
  cache.table_generation = stack_table_generation();
  cache.map_change_ns = map_change_ns();
  cache.excluded_objects = static_cast<uint32_t>(stack_capture_excluded_objects());
  const uint64_t sp = registers[UNW_X86_64_RSP];
  Fill fill{registers, &cache, sp, own_stack_top(sp), (sp & ~(kPage - 1)) + kPage, 0, 0, true};
  if (fill.stack_top == 0) fill.reusable = false;

  const UnwindingScope unwinding;
  const UnwinderUse unwinder;
  if (!unwinder.entered()) return LUMEN_NO_STACK;
  // libunwind maps memory for its pools; no tracing interposer may see it.
  const RuntimeGuard in_runtime;
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, g_space, &fill) < 0) return LUMEN_NO_STACK;
  uint64_t pcs[LUMEN_MAX_STACK_DEPTH + 16];
  int count = 0;
  do {
    unw_word_t ip = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
    pcs[count++] = ip;
  } while (count < static_cast<int>(LUMEN_MAX_STACK_DEPTH) + 16 && unw_step(&cursor) > 0);
  const uint64_t stack = intern_traced_call_frames(pcs, count, 2 + skip);
  // The SP is what makes reading the recorded words safe: always compared.
  if (!fill.reusable || stack == LUMEN_NO_STACK || (cache.register_mask & (1u << UNW_X86_64_RSP)) == 0)
    return stack;
  cache.stack = stack;
  cache.tid = current_tid();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  cache.state = kFilled;
  return stack;
}

// Whether the unwinding `cache` recorded would read the same now.
bool still_holds(const Layout& cache, const uint64_t* registers) {
  if (cache.state != kFilled || cache.tid != current_tid() ||
      cache.registers[UNW_X86_64_RSP] != registers[UNW_X86_64_RSP] ||
      cache.snapshot_generation != object_snapshot_generation() ||
      cache.table_generation != stack_table_generation() || cache.map_change_ns != map_change_ns() ||
      cache.excluded_objects != static_cast<uint32_t>(stack_capture_excluded_objects()))
    return false;
  for (uint32_t mask = cache.register_mask; mask != 0; mask &= mask - 1) {
    const int reg = __builtin_ctz(mask);
    if (cache.registers[reg] != registers[reg]) return false;
  }
  // Every word lies between the SP (the same) and this thread's stack top,
  // mapped when it was filled (a thread's stack above its SP stays mapped),
  // or in a writable segment of an object of the same snapshot.
  for (uint32_t i = 0; i < cache.word_count; ++i) {
    uint64_t now;
    std::memcpy(&now, reinterpret_cast<const void*>(cache.words[i][0]), sizeof now);
    if (now != cache.words[i][1]) return false;
  }
  return true;
}

}  // namespace

void reusable_capture_init() {
  if (g_space != nullptr) return;
  // The generic library opens a validation pipe of its own on first use:
  // as the runtime's unwinding, the pipe2 interposer moves it out of the
  // program's range of descriptors.
  const UnwindingScope unwinding;
  g_space = unw_create_addr_space(&g_accessors, 0);
  // No cache: a cached register state would be read without the accessors
  // seeing it (and tables of objects unloaded since are never reused).
  if (g_space != nullptr) unw_set_caching_policy(g_space, UNW_CACHE_NONE);
}

void reusable_capture_watch_map_changes(const volatile uint64_t* map_change) { g_map_change_ns = map_change; }

// noinline: pcs[0] is in this function, pcs[1] its caller's, as
// capture_stack's frames are.
__attribute__((noinline)) uint64_t capture_stack_reusing(lumen_capture_cache* opaque, int skip) {
  // The registers here, in libunwind's numbering, taken at one instruction:
  // the unwinding starts from this frame, so callee-saved registers are
  // exactly what this function's callers left in them.
  uint64_t registers[kRegisters];
  asm volatile(
      "movq %%rax, 0(%0)\n\t"
      "movq %%rdx, 8(%0)\n\t"
      "movq %%rcx, 16(%0)\n\t"
      "movq %%rbx, 24(%0)\n\t"
      "movq %%rsi, 32(%0)\n\t"
      "movq %%rdi, 40(%0)\n\t"
      "movq %%rbp, 48(%0)\n\t"
      "movq %%rsp, 56(%0)\n\t"
      "movq %%r8, 64(%0)\n\t"
      "movq %%r9, 72(%0)\n\t"
      "movq %%r10, 80(%0)\n\t"
      "movq %%r11, 88(%0)\n\t"
      "movq %%r12, 96(%0)\n\t"
      "movq %%r13, 104(%0)\n\t"
      "movq %%r14, 112(%0)\n\t"
      "movq %%r15, 120(%0)\n\t"
      "leaq 0(%%rip), %%r11\n\t"
      "movq %%r11, 128(%0)"
      :
      : "r"(registers)
      : "r11", "memory");
  const CollectorWork collector_work;
  object_snapshot_refresh_if_missed();
  auto& cache = *reinterpret_cast<Layout*>(opaque);
  // A frame provider's frames come from a managed runtime's state, which
  // the read set does not hold; before init there is no address space.
  if (g_space == nullptr || stack_capture_has_frame_provider()) return capture_stack(nullptr, skip + 1);
  if (still_holds(cache, registers)) {
    ++cache.reused;
    cache.unwound_in_a_row = 0;
    return remember_latest_stack(cache.stack);
  }
  if (cache.plain_left > 0) {
    --cache.plain_left;
    return capture_stack(nullptr, skip + 1);
  }
  if (++cache.unwound_in_a_row == kUnwoundBeforePlain) {
    cache.unwound_in_a_row = 0;
    cache.plain_left = kPlainCaptures;
  }
  // The checked reads' failures (EFAULT) are not the program's.
  const int saved_errno = errno;
  const uint64_t stack = unwind_and_fill(cache, registers, skip);
  errno = saved_errno;
  return stack;
}

ReuseCounts reuse_counts(const lumen_capture_cache* opaque) {
  const auto& cache = *reinterpret_cast<const Layout*>(opaque);
  return {cache.reused, cache.unwound};
}

}  // namespace lumen::collector
