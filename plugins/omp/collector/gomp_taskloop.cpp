// Taskloops under GCC's libgomp: `#pragma omp taskloop` reaches libgomp as
// GOMP_taskloop (long iterations) or GOMP_taskloop_ull (unsigned long
// long), with the loop's body outlined as fn and its data as for GOMP_task
// (arg_size bytes, or copied by the compiler's cpyfn). libgomp makes one
// task per chunk, each on its own copy of the data, into whose first two
// words it writes the chunk's bounds before fn runs; with a reduction it
// also reads the third word of the data (the reduction's descriptor).
//
// The wrapper hands libgomp a block whose first three words are the
// program's (where libgomp reads and writes), then a header naming the
// body, the creating call's stack and time, then the program's data, and
// run_taskloop_task as the body: it moves the chunk's bounds into the
// program's data, runs fn on it and records the task (OmpExplicitTask), as
// GOMP_task's trampoline does. Without nogroup the call waits for its tasks
// (an implicit taskgroup, which libgomp ends inside the call): the call is
// recorded as a taskwait, which the tasks its thread runs meanwhile cut.
#include <alloca.h>

#include <algorithm>
#include <cstring>

#include <lumen/collector_support.h>

#include "omp_collector.h"

namespace lumen::omp {

namespace {

using Body = void (*)(void*);
using CopyFunction = void (*)(void*, void*);

constexpr unsigned kNoGroup = 1u << 11;    // GOMP_TASK_FLAG_NOGROUP
constexpr size_t kProgramWords = 3;        // the bounds, and a reduction's descriptor
constexpr size_t kPrefix = kProgramWords * sizeof(uint64_t);

struct LoopHeader {
  Body body;
  CopyFunction program_copy;  // the compiler's cpyfn, or NULL (a flat copy)
  void* program_data;         // the program's data
  const void* template_block; // the block handed to libgomp, which it runs on when undeferred
  uint64_t region_id;
  uint64_t create_stack_id;
  uint64_t create_ns;
  uint32_t creating_thread_id;
  uint32_t data_offset;  // where the program's data begins in the block
  uint64_t data_size;
};

LoopHeader* header_of(void* block) { return reinterpret_cast<LoopHeader*>(static_cast<char*>(block) + kPrefix); }

void run_taskloop_task(void* block) {
  const LoopHeader* header = header_of(block);
  char* data = static_cast<char*>(block) + header->data_offset;
  // The chunk's bounds, where libgomp wrote them.
  std::memcpy(data, block, std::min<size_t>(2 * sizeof(uint64_t), header->data_size));
  const lumen_runtime* runtime = recording_runtime();
  const uint64_t begin = runtime != nullptr ? runtime->time->now_ns() : 0;
  header->body(data);
  // Undeferred without a cpyfn, libgomp runs the program's body on the
  // program's own data: what the body wrote there stays written.
  if (block == header->template_block) std::memcpy(header->program_data, data, header->data_size);
  if (runtime == nullptr) return;
  ErrnoKept errno_kept;
  TraceGuard guard(runtime);
  if (!guard) return;
  write_explicit_task(
      guard, OmpExplicitTask{next_task_id(), header->region_id, header->create_stack_id,
                             reinterpret_cast<uint64_t>(header->body), header->create_ns, begin,
                             runtime->time->now_ns(), header->creating_thread_id, runtime->threads->thread_id()});
}

// libgomp's copy of the block for each task, when the program has a cpyfn.
void copy_taskloop_block(void* destination, void* source) {
  const LoopHeader* header = header_of(source);
  std::memcpy(destination, source, kPrefix + sizeof(LoopHeader));
  header->program_copy(static_cast<char*>(destination) + header->data_offset, header->program_data);
}

template <typename Bound>
using TaskloopStart = void(Body, void*, CopyFunction, long, long, unsigned, unsigned long, int, Bound, Bound, Bound);
RealFunction<TaskloopStart<long>> real_taskloop{"GOMP_taskloop", "GOMP_4.5"};
RealFunction<TaskloopStart<unsigned long long>> real_taskloop_ull{"GOMP_taskloop_ull", "GOMP_4.5"};

template <typename Bound>
void traced_taskloop(RealFunction<TaskloopStart<Bound>>& real, Body body, void* data, CopyFunction copy,
                     long arg_size, long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                     Bound start, Bound end, Bound step) {
  const lumen_runtime* runtime = interposing_runtime();
  if (runtime == nullptr || arg_size < static_cast<long>(2 * sizeof(Bound)) || data == nullptr)
    return real.get()(body, data, copy, arg_size, arg_align, flags, num_tasks, priority, start, end, step);
  const long align = std::max<long>({arg_align, 1, static_cast<long>(alignof(LoopHeader))});
  const long header_end = static_cast<long>(kPrefix + sizeof(LoopHeader));
  const long offset = (header_end + align - 1) / align * align;
  const long size = offset + arg_size;
  const uint64_t stack = program_stack(runtime);
  const uint64_t begin = runtime->time->now_ns();
  // On this thread's stack: libgomp copies it into every task before it
  // returns (and waits for the tasks unless nogroup).
  const auto address = reinterpret_cast<uintptr_t>(alloca(static_cast<size_t>(size + align)));
  char* block = reinterpret_cast<char*>((address + align - 1) / align * align);
  std::memcpy(block, data, std::min<size_t>(kPrefix, static_cast<size_t>(arg_size)));
  *header_of(block) = LoopHeader{body, copy, data, block, current_region(), stack, begin, runtime->threads->thread_id(),
                                 static_cast<uint32_t>(offset), static_cast<uint64_t>(arg_size)};
  if (copy == nullptr) std::memcpy(block + offset, data, static_cast<size_t>(arg_size));
  real.get()(run_taskloop_task, block, copy != nullptr ? copy_taskloop_block : nullptr, size, align, flags, num_tasks,
             priority, start, end, step);
  if ((flags & kNoGroup) != 0) return;
  ErrnoKept errno_kept;
  TraceGuard guard(runtime);
  if (guard)
    write_wait(guard, OmpWait{current_region(), begin, runtime->time->now_ns(), stack, 0, runtime->threads->thread_id(),
                              static_cast<uint16_t>(WaitKind::kTaskwait), 0});
}

}  // namespace

void resolve_taskloop_functions() {
  real_taskloop.get();
  real_taskloop_ull.get();
}

}  // namespace lumen::omp

LUMEN_EXPORT void GOMP_taskloop(void (*body)(void*), void* data, void (*copy)(void*, void*), long arg_size,
                                long arg_align, unsigned flags, unsigned long num_tasks, int priority, long start,
                                long end, long step) {
  lumen::omp::traced_taskloop(lumen::omp::real_taskloop, body, data, copy, arg_size, arg_align, flags, num_tasks,
                              priority, start, end, step);
}

LUMEN_EXPORT void GOMP_taskloop_ull(void (*body)(void*), void* data, void (*copy)(void*, void*), long arg_size,
                                    long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                                    unsigned long long start, unsigned long long end, unsigned long long step) {
  lumen::omp::traced_taskloop(lumen::omp::real_taskloop_ull, body, data, copy, arg_size, arg_align, flags,
                              num_tasks, priority, start, end, step);
}
