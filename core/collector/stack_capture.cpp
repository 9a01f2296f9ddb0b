#define UNW_LOCAL_ONLY
#include "stack_capture.h"

#include <libunwind.h>
#include <lumen/record_format.h>

#include <cstring>

#include "stack_table.h"

namespace lumen::collector {

void stack_capture_init() { unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD); }

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
