#define UNW_LOCAL_ONLY
#include "stack_capture.h"

#include <libunwind.h>
#include <lumen/record_format.h>

#include <link.h>

#include <atomic>
#include <cstring>

#include "stack_table.h"

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

void stack_capture_init() {
  unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
  stack_capture_exclude_object_of(reinterpret_cast<const void*>(&stack_capture_init));
}

void stack_capture_exclude_object_of(const void* address) {
  RangeQuery query{reinterpret_cast<uint64_t>(address), {0, 0}};
  dl_iterate_phdr(find_object_range, &query);
  const int count = g_excluded_count.load(std::memory_order_relaxed);
  if (query.found.end == 0 || count >= kMaxExcluded || excluded(query.address)) return;
  g_excluded[count] = query.found;
  g_excluded_count.store(count + 1, std::memory_order_release);
}

// noinline keeps "the caller of the caller" meaningful for interposers.
__attribute__((noinline)) uint64_t capture_stack(void* ucontext, int skip) {
  unw_context_t context;
  unw_cursor_t cursor;
  if (ucontext != nullptr) {
    // On x86-64 libunwind's context is a ucontext_t: the handler's own.
    std::memcpy(&context, ucontext, sizeof context);
    if (unw_init_local2(&cursor, &context, UNW_INIT_SIGNAL_FRAME) < 0) return LUMEN_NO_STACK;
  } else {
    if (unw_getcontext(&context) < 0 || unw_init_local(&cursor, &context) < 0) return LUMEN_NO_STACK;
    // Drop this frame and the frame of our caller, then `skip` more.
    for (int i = 0; i < skip + 2; ++i)
      if (unw_step(&cursor) <= 0) return LUMEN_NO_STACK;
  }
  uint64_t pcs[LUMEN_MAX_STACK_DEPTH];
  uint32_t depth = 0;
  uint32_t flags = ucontext != nullptr ? 0u : static_cast<uint32_t>(LUMEN_STACK_LEAF_IS_RETURN);
  for (;;) {
    unw_word_t ip = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
    if (excluded(ip)) {
      // The frame after a left-out one is a return address, leaf or not.
      if (depth == 0) flags |= LUMEN_STACK_LEAF_IS_RETURN;
      if (unw_step(&cursor) <= 0) break;
      continue;
    }
    if (depth == LUMEN_MAX_STACK_DEPTH) {
      flags |= LUMEN_STACK_TRUNCATED;
      break;
    }
    pcs[depth++] = ip;
    if (unw_step(&cursor) <= 0) break;
  }
  if (depth == 0) return LUMEN_NO_STACK;
  return stack_table_intern(pcs, depth, flags);
}

}  // namespace lumen::collector
