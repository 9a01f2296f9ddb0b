#include "thread_state.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace lumen::collector {

namespace {
__attribute__((tls_model("initial-exec"))) thread_local ThreadState t_state;
static_assert(std::atomic<uint32_t>::is_always_lock_free, "handler touches it");

}  // namespace

ThreadState& current_thread() {
  if (t_state.tid == 0) t_state.tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return t_state;
}

uint32_t current_tid() { return current_thread().tid; }

}  // namespace lumen::collector
