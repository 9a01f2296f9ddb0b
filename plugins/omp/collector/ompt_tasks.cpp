// Explicit tasks under an OMPT runtime (LLVM libomp): the same
// OmpExplicitTask records as libgomp's GOMP_task path (gomp_tasks.cpp).
//   task_create     on the creating thread: a slot for the task holds its
//                   id, its region, the creating call's stack and time
//   task_schedule   on the thread that runs it: its run begins the first
//                   time it is scheduled, and its record is written when
//                   it completes (a task that switches to a child in its
//                   own taskwait keeps running, as libgomp's trampoline
//                   times it)
// A stitch needs the task's entry function (clang's `.omp_task_entry.`),
// which OMPT does not report: the program's calls that submit a task,
// __kmpc_omp_task and __kmpc_omp_task_with_deps, are interposed to read it
// from the task (the second word of kmp_task_t, the compiler's ABI) and to
// capture the program's stack, both handed to the task_create callback
// the runtime makes inside them. A chained tool then hears the program's
// return address, as it would have without the plugin.
#include <atomic>
#include <cstdint>

#include <lumen/collector_support.h>

#include "omp_collector.h"
#include "ompt_tool.h"

namespace lumen::omp {

namespace {

// Tasks created and not yet completed at once; beyond, tasks are counted
// as dropped. A slot's index (from 1) is the task's ompt_data_t value.
constexpr uint32_t kSlots = 1u << 14;
constexpr int kProbes = 64;

struct TaskSlot {
  std::atomic<const ompt_data_t*> owner{nullptr};  // the task's data; NULL: free
  OmpExplicitTask record{};
  bool started = false;
};
TaskSlot g_slots[kSlots];
std::atomic<uint32_t> g_next_slot{0};

TaskSlot* claim_slot(const ompt_data_t* task) {
  for (int probe = 0; probe < kProbes; ++probe) {
    const uint32_t index = g_next_slot.fetch_add(1, std::memory_order_relaxed) & (kSlots - 1);
    const ompt_data_t* expected = nullptr;
    if (g_slots[index].owner.compare_exchange_strong(expected, task, std::memory_order_acquire,
                                                     std::memory_order_relaxed))
      return &g_slots[index];
  }
  return nullptr;
}

// The slot of a task the plugin recorded the creation of, else NULL (an
// implicit task, or a task whose value a chained tool replaced).
TaskSlot* slot_of(const ompt_data_t* task) {
  if (task == nullptr || task->value == 0 || task->value > kSlots) return nullptr;
  TaskSlot* slot = &g_slots[task->value - 1];
  return slot->owner.load(std::memory_order_acquire) == task ? slot : nullptr;
}

// What an interposed submission hands the task_create callback inside it.
struct Submission {
  uint64_t entry;              // the task's entry function
  uint64_t stack;              // the program's call's stack
  const void* return_address;  // in the program, after its call
  bool open;                   // not yet taken by a task_create callback
};
__attribute__((tls_model("initial-exec"))) thread_local Submission t_submission;

// kmp_task_t begins { void* shareds; kmp_routine_entry_t routine; ... }.
uint64_t entry_of(const void* task) { return reinterpret_cast<const uint64_t*>(task)[1]; }

template <typename Call>
auto submitted(const void* task, const void* return_address, Call call) {
  const lumen_runtime* runtime = ompt_active() ? recording_runtime() : nullptr;
  if (runtime == nullptr || task == nullptr) return call();
  const Submission outer = t_submission;  // a task run at once may submit its own
  t_submission = Submission{entry_of(task), program_stack(runtime, site_cache(Site::kOmptTask)), return_address, true};
  const auto result = call();
  t_submission = outer;
  return result;
}

void write_completed(const lumen_runtime* runtime, TaskSlot* slot) {
  ErrnoKept errno_kept;
  TraceGuard guard(runtime);
  if (!guard) return;
  slot->record.end_ns = runtime->time->now_ns();
  write_explicit_task(guard, slot->record);
}

using TaskSubmit = int32_t(void*, int32_t, void*);
using TaskSubmitWithDeps = int32_t(void*, int32_t, void*, int32_t, void*, int32_t, void*);
RealFunction<TaskSubmit> real_omp_task{"__kmpc_omp_task", "VERSION"};
RealFunction<TaskSubmitWithDeps> real_omp_task_with_deps{"__kmpc_omp_task_with_deps", "VERSION"};

}  // namespace

void on_task_create(ompt_data_t* encountering_task, const ompt_frame_t* encountering_frame, ompt_data_t* new_task,
                    int flags, int has_dependences, const void* codeptr) {
  Submission submission{};
  if (t_submission.open) {
    submission = t_submission;
    t_submission.open = false;
    codeptr = submission.return_address;
  }
  const lumen_runtime* runtime = recording_runtime();
  if (runtime != nullptr && new_task != nullptr && (flags & ompt_task_explicit) != 0) {
    if (TaskSlot* slot = claim_slot(new_task)) {
      const uint64_t stack = submission.return_address != nullptr ? submission.stack : callback_stack(runtime);
      slot->record = OmpExplicitTask{next_task_id(), current_region(), stack, submission.entry, runtime->time->now_ns(),
                                     0, 0, runtime->threads->thread_id(), 0};
      slot->started = false;
      new_task->value = static_cast<uint64_t>(slot - g_slots) + 1;
    } else {
      runtime->recording->count_drop();
    }
  }
  if (ompt_callback_t next = chained_callback(ompt_callback_task_create))
    reinterpret_cast<ompt_callback_task_create_t>(next)(encountering_task, encountering_frame, new_task, flags,
                                                        has_dependences, codeptr);
}

void on_task_schedule(ompt_data_t* prior_task, ompt_task_status_t prior_status, ompt_data_t* next_task) {
  if (const lumen_runtime* runtime = recording_runtime()) {
    const bool over = prior_status == ompt_task_complete || prior_status == ompt_task_cancel ||
                      prior_status == ompt_task_detach;
    if (TaskSlot* slot = over ? slot_of(prior_task) : nullptr) {
      if (slot->started) write_completed(runtime, slot);
      slot->owner.store(nullptr, std::memory_order_release);
    }
    if (TaskSlot* slot = slot_of(next_task); slot != nullptr && !slot->started) {
      slot->started = true;
      slot->record.thread_id = runtime->threads->thread_id();
      slot->record.begin_ns = runtime->time->now_ns();
    }
  }
  if (ompt_callback_t next = chained_callback(ompt_callback_task_schedule))
    reinterpret_cast<ompt_callback_task_schedule_t>(next)(prior_task, prior_status, next_task);
}

void resolve_ompt_task_functions() {
  real_omp_task.get();
  real_omp_task_with_deps.get();
}

}  // namespace lumen::omp

using lumen::omp::submitted;

LUMEN_EXPORT int32_t __kmpc_omp_task(void* location, int32_t gtid, void* task) {
  return submitted(task, __builtin_return_address(0),
                   [&] { return lumen::omp::real_omp_task.get()(location, gtid, task); });
}

LUMEN_EXPORT int32_t __kmpc_omp_task_with_deps(void* location, int32_t gtid, void* task, int32_t dependences,
                                               void* dependence_list, int32_t noalias_dependences,
                                               void* noalias_dependence_list) {
  return submitted(task, __builtin_return_address(0), [&] {
    return lumen::omp::real_omp_task_with_deps.get()(location, gtid, task, dependences, dependence_list,
                                                     noalias_dependences, noalias_dependence_list);
  });
}
