// libunwind's generic (remote) interface, with this process as the "remote"
// one: unwind tables are found in the runtime's snapshot of loaded objects
// (object_snapshot.h, no linker lock) and read, like the stack, through
// process_vm_readv, which fails with EFAULT where a plain read would fault.
#include "stacks/blocked_stack.h"

#include <libunwind.h>
#include <lumen/record_format.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "stacks/snapshot_unwind_tables.h"
#include "stacks/stack_capture.h"

// The local unwinder's step (libunwind.so, which the runtime unwinds its own
// process with): this file's names are the remote library's.
extern "C" int _ULx86_64_step(unw_cursor_t*);
extern "C" int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t, unw_word_t, unw_dyn_info_t*, unw_proc_info_t*,
                                                  int, void*);

namespace lumen::collector {

namespace {

constexpr uint64_t kPage = 4096;
constexpr int kCachedPages = 16;

// The pages one capture has read, so that libunwind's many small reads of
// one table or stack page cost one system call.
struct PageCache {
  uint64_t address[kCachedPages];
  bool valid[kCachedPages];
  int next;
  alignas(8) unsigned char data[kCachedPages][kPage];
};

struct Capture {
  uint64_t pc, sp, bp;
  PageCache* pages;
  uint64_t stack_end;  // above the highest word of the stack the unwinding read
};

constexpr uint64_t kMaxStackSpan = 64 * 1024;

PageCache g_pages;
std::atomic<bool> g_busy{false};
unw_addr_space_t g_space = nullptr;

const unsigned char* cached_page(PageCache& cache, uint64_t page) {
  for (int i = 0; i < kCachedPages; ++i)
    if (cache.valid[i] && cache.address[i] == page) return cache.data[i];
  const int slot = cache.next;
  cache.next = (cache.next + 1) % kCachedPages;
  iovec local{cache.data[slot], kPage};
  iovec remote{reinterpret_cast<void*>(page), kPage};
  cache.valid[slot] = process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(kPage);
  cache.address[slot] = page;
  return cache.valid[slot] ? cache.data[slot] : nullptr;
}

bool read_safely(PageCache& cache, uint64_t address, void* out, size_t bytes) {
  auto* to = static_cast<unsigned char*>(out);
  while (bytes > 0) {
    const uint64_t page = address & ~(kPage - 1);
    const unsigned char* data = cached_page(cache, page);
    if (data == nullptr) return false;
    const size_t offset = address - page;
    const size_t n = bytes < kPage - offset ? bytes : kPage - offset;
    std::memcpy(to, data + offset, n);
    to += n, address += n, bytes -= n;
  }
  return true;
}

int access_mem(unw_addr_space_t, unw_word_t address, unw_word_t* value, int write, void* arg) {
  if (write) return -UNW_EINVAL;
  auto* c = static_cast<Capture*>(arg);
  if (address >= c->sp && address - c->sp < kMaxStackSpan && address + sizeof *value > c->stack_end)
    c->stack_end = address + sizeof *value;
  return read_safely(*c->pages, address, value, sizeof *value) ? 0 : -UNW_EINVAL;
}

int access_reg(unw_addr_space_t, unw_regnum_t reg, unw_word_t* value, int write, void* arg) {
  if (write) return -UNW_EREADONLYREG;
  const auto* c = static_cast<Capture*>(arg);
  switch (reg) {
    case UNW_X86_64_RIP: *value = c->pc; return 0;
    case UNW_X86_64_RSP: *value = c->sp; return 0;
    case UNW_X86_64_RBP: *value = c->bp; return 0;
    default: *value = 0; return 0;  // unknown: a frame needing it ends the stack
  }
}

int access_fpreg(unw_addr_space_t, unw_regnum_t, unw_fpreg_t*, int, void*) { return -UNW_EBADREG; }
int resume(unw_addr_space_t, unw_cursor_t*, void*) { return -UNW_EINVAL; }
int get_proc_name(unw_addr_space_t, unw_word_t, char*, size_t, unw_word_t*, void*) { return -UNW_ENOINFO; }
int get_dyn_info_list_addr(unw_addr_space_t, unw_word_t*, void*) { return -UNW_ENOINFO; }
void put_unwind_info(unw_addr_space_t, unw_proc_info_t*, void*) {}

bool read_page_cached(void* pages, uint64_t address, void* out, size_t bytes) {
  return read_safely(*static_cast<PageCache*>(pages), address, out, bytes);
}

int find_proc_info(unw_addr_space_t space, unw_word_t ip, unw_proc_info_t* info, int need_unwind_info, void* arg) {
  unw_dyn_info_t table;
  if (!snapshot_unwind_table(ip, &table, read_page_cached, static_cast<Capture*>(arg)->pages)) return -UNW_ENOINFO;
  return UNW_OBJ(dwarf_search_unwind_table)(space, ip, &table, info, need_unwind_info, arg);
}

// The outermost frame in libunwind's own code (the library the runtime
// unwinds the program's threads with), or -1: a thread found blocked there
// (its lock, its signal masking, a profiling handler that interrupted it)
// was unwinding for the collector.
int outermost_libunwind_frame(const uint64_t* pcs, int count) {
  uint64_t start = 0, end = 0;
  if (!snapshot_code_segment(reinterpret_cast<uint64_t>(&_ULx86_64_step), &start, &end)) return -1;
  for (int i = count - 1; i >= 0; --i)
    if (pcs[i] >= start && pcs[i] < end) return i;
  return -1;
}

unw_accessors_t g_accessors = {find_proc_info, put_unwind_info, get_dyn_info_list_addr, access_mem,
                               access_reg,     access_fpreg,    resume,                 get_proc_name};

}  // namespace

void blocked_stack_prepare() {
  if (g_space != nullptr) return;
  g_space = unw_create_addr_space(&g_accessors, 0);
  if (g_space != nullptr) unw_set_caching_policy(g_space, UNW_CACHE_NONE);  // tables of objects unloaded since are never reused
}

uint64_t capture_blocked_stack(uint64_t pc, uint64_t sp, uint64_t bp, uint64_t* stack_end) {
  *stack_end = 0;
  // Busy only inside the unwinder's window, which a fork waits for: a child
  // never inherits the flag set.
  const UnwinderUse unwinder;
  if (!unwinder.entered()) return LUMEN_NO_STACK;
  if (g_busy.exchange(true, std::memory_order_acquire)) return LUMEN_NO_STACK;
  struct Release {
    ~Release() { g_busy.store(false, std::memory_order_release); }
  } release;
  if (g_space == nullptr) return LUMEN_NO_STACK;
  for (bool& valid : g_pages.valid) valid = false;
  Capture capture{pc, sp, bp, &g_pages, sp};
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, g_space, &capture) < 0) return LUMEN_NO_STACK;
  uint64_t pcs[LUMEN_MAX_STACK_DEPTH + 1];
  int count = 0;
  do {
    unw_word_t ip = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
    pcs[count++] = ip;
  } while (count < static_cast<int>(LUMEN_MAX_STACK_DEPTH) + 1 && unw_step(&cursor) > 0);
  if (count == 0) return LUMEN_NO_STACK;
  *stack_end = capture.stack_end;
  return intern_unwound_stack(pcs, count, outermost_libunwind_frame(pcs, count));
}

}  // namespace lumen::collector
