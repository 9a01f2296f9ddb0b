#include "threads/program_thread_state.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace lumen::collector {

static_assert(std::atomic<uint32_t>::is_always_lock_free, "handler touches it");

void fill_current_tid() { t_thread_state.tid = static_cast<uint32_t>(syscall(SYS_gettid)); }

}  // namespace lumen::collector
