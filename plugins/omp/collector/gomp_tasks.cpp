// Explicit tasks under GCC's libgomp: `#pragma omp task` reaches libgomp as
// GOMP_task(fn, data, cpyfn, arg_size, arg_align, ...), and libgomp copies
// `data` (arg_size bytes, or through the compiler's cpyfn) into the task,
// for the task to run fn on its copy later, on any thread of the team. The
// wrapper hands libgomp a larger block instead: a header saying which
// body to run and where the task was created, then the program's data,
// and run_explicit_task as the body; the header's copy function copies the
// header and calls the program's cpyfn for the rest. So each task is timed
// where it runs, with the stack of the call that created it.
#include <alloca.h>

#include <algorithm>
#include <cstring>

#include <lumen/collector_support.h>

#include "omp_collector.h"

namespace lumen::omp {

namespace {

using Body = void (*)(void*);
using CopyFunction = void (*)(void*, void*);

struct TaskHeader {
  Body body;
  CopyFunction program_copy;  // the compiler's cpyfn, or NULL (a flat copy)
  void* program_data;         // the program's data, which cpyfn reads
  uint64_t task_id;
  uint64_t region_id;
  uint64_t create_stack_id;
  uint64_t create_ns;
  uint32_t creating_thread_id;
  uint32_t data_offset;  // where the program's data begins in the block
};

void run_explicit_task(void* block) {
  const auto* header = static_cast<const TaskHeader*>(block);
  void* data = static_cast<char*>(block) + header->data_offset;
  const lumen_runtime* runtime = recording_runtime();
  if (runtime == nullptr) return header->body(data);
  const uint64_t begin = runtime->time->now_ns();
  header->body(data);
  ErrnoKept errno_kept;
  TraceGuard guard(runtime);
  if (!guard) return;
  write_explicit_task(
      guard, OmpExplicitTask{header->task_id, header->region_id, header->create_stack_id,
                             reinterpret_cast<uint64_t>(header->body), header->create_ns, begin,
                             runtime->time->now_ns(), header->creating_thread_id, runtime->threads->thread_id()});
}

// libgomp's copy of a deferred task's block, when the program has a cpyfn.
void copy_explicit_task(void* destination, void* source) {
  const auto* header = static_cast<const TaskHeader*>(source);
  std::memcpy(destination, header, sizeof(TaskHeader));
  header->program_copy(static_cast<char*>(destination) + header->data_offset, header->program_data);
}

using TaskStart = void(Body, void*, CopyFunction, long, long, bool, unsigned, void**, int, void*);
RealFunction<TaskStart> real_task{"GOMP_task", "GOMP_2.0"};

}  // namespace

void resolve_task_functions() { real_task.get(); }

}  // namespace lumen::omp

LUMEN_EXPORT void GOMP_task(void (*body)(void*), void* data, void (*copy)(void*, void*), long arg_size,
                            long arg_align, bool if_clause, unsigned flags, void** depend, int priority,
                            void* detach) {
  using namespace lumen::omp;
  const lumen_runtime* runtime = interposing_runtime();
  if (runtime == nullptr || arg_size < 0)
    return real_task.get()(body, data, copy, arg_size, arg_align, if_clause, flags, depend, priority, detach);
  const long align = std::max<long>({arg_align, 1, static_cast<long>(alignof(TaskHeader))});
  const long offset = (static_cast<long>(sizeof(TaskHeader)) + align - 1) / align * align;
  const long size = offset + arg_size;
  // On this thread's stack, as the compiler keeps `data`: libgomp copies
  // it before GOMP_task returns, or runs the task at once.
  const auto address = reinterpret_cast<uintptr_t>(alloca(static_cast<size_t>(size + align)));
  char* block = reinterpret_cast<char*>((address + align - 1) / align * align);
  auto* header = reinterpret_cast<TaskHeader*>(block);
  const uint64_t stack = program_stack(runtime, site_cache(Site::kGompTask));
  *header = TaskHeader{body, copy, data, next_task_id(), current_region(), stack, runtime->time->now_ns(),
                       runtime->threads->thread_id(), static_cast<uint32_t>(offset)};
  // libgomp runs an undeferred task without a cpyfn on `data` itself; with
  // one, it always copies (through copy_explicit_task).
  if (copy == nullptr && arg_size > 0) std::memcpy(block + offset, data, static_cast<size_t>(arg_size));
  real_task.get()(run_explicit_task, block, copy != nullptr ? copy_explicit_task : nullptr, size, align, if_clause,
                  flags, depend, priority, detach);
}
