// Call-stack capture with libunwind, for signal handlers and interposers.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstdint>

namespace lumen::collector {

// Not signal-safe: initialises libunwind, its caching and the snapshot of
// loaded objects it looks up unwind tables in (object_snapshot.h).
void stack_capture_init();

// Not signal-safe. libunwind's register-state cache is one table under one
// lock: Debian's build has no per-thread caches (UNW_CACHE_PER_THREAD
// silently becomes global). Asked for as such, so nobody relies on more.
void stack_capture_use_global_cache();

// Not signal-safe. libunwind was loaded into a running process (collect
// -P): its per-thread trace cache is then in dynamic thread-local storage,
// which glibc allocates with malloc at a thread's first unw_backtrace. In a
// handler that malloc may wait for a lock the interrupted code holds (the C
// library's, or a program's own allocator's), for ever: handlers step a
// cursor instead, which needs no thread-local storage.
void stack_capture_unwinder_loaded_late();

// Not signal-safe. Frames inside the object that holds `address` (the
// runtime itself, a plugin's collector half) are left out of every stack
// captured from now on: the target's stacks show the target's code only.
void stack_capture_exclude_object_of(const void* address);

// Not signal-safe. Installs the frame provider that rewrites every stack
// captured from a signal's ucontext (lumen_frame_provider: a plugin adds the
// frames of a managed runtime, which libunwind cannot see). One per process:
// false when another is installed; nullptr removes it.
bool stack_capture_set_frame_provider(lumen_frame_provider provider);

// [signal-safe] Unwinds the calling thread and interns the stack. With a
// signal `ucontext` the leaf is the interrupted instruction; without one the
// leaf is the caller of the function that called capture_stack, after
// `skip` further frames are dropped. Stacks deeper than
// LUMEN_MAX_STACK_DEPTH keep their leaf end and are flagged truncated.
uint64_t capture_stack(void* ucontext, int skip);

// [signal-safe] capture_stack(ucontext, 0) with `leaf_pcs[0..leaf_count)`
// (the kernel's frames of the sample: the interrupted kernel PC, then
// return addresses) above the interrupted user frame, leaf-most.
uint64_t capture_stack_under(void* ucontext, const uint64_t* leaf_pcs, uint32_t leaf_count);

// Not signal-safe. Interns a stack another thread's registers were unwound
// into (blocked_stack.h), leaf first, the leaf being the thread's PC: the
// collector's own frames are left out as from a capture. When frame
// `unwinding_at` (>= 0) is the collector's unwinder at work, the stack
// starts at the collector's entry outward of it, as a profiling signal
// landing in CollectorWork records it.
uint64_t intern_unwound_stack(const uint64_t* pcs, int count, int unwinding_at);

// [signal-safe] Interns the frames of a traced call's stack unwound from
// the capturing function's own registers (`pcs[0]` in that function), as
// capture_stack(nullptr, ...) does with its own: from `first` on, the
// collector's frames left out, the leaf flagged as a return address; keeps
// it as the thread's latest stack. No frame provider is applied: callers
// check stack_capture_has_frame_provider() first.
uint64_t intern_traced_call_frames(const uint64_t* pcs, int count, int first);

// [signal-safe] Keeps `stack` (when it is one) as the calling thread's
// latest, as every capture does; returns it.
uint64_t remember_latest_stack(uint64_t stack);

// [signal-safe] Whether a frame provider rewrites captured stacks, and how
// many objects' frames are left out of them: what interning a list of
// frames depends on besides the frames and the stack table.
bool stack_capture_has_frame_provider();
int stack_capture_excluded_objects();

// [signal-safe] Counts the calling thread as unwinding for its lifetime
// (unwinding_now()), so that the signal-mask interposers let libunwind block
// signals around its locks. A depth: a handler may nest one.
class UnwindingScope {
 public:
  UnwindingScope();
  ~UnwindingScope();
  UnwindingScope(const UnwindingScope&) = delete;
  UnwindingScope& operator=(const UnwindingScope&) = delete;
};

// Not signal-safe. Counts the calling thread in as using an unwinder for its
// lifetime, so that a fork waits for it to leave (libunwind's locks are
// process-wide); entered() is false when a fork is under way and it could
// not wait: then it must not unwind.
class UnwinderUse {
 public:
  UnwinderUse();
  ~UnwinderUse();
  UnwinderUse(const UnwinderUse&) = delete;
  UnwinderUse& operator=(const UnwinderUse&) = delete;
  bool entered() const { return entered_; }

 private:
  bool entered_;
};

// [signal-safe] Marks the calling thread as doing the collector's own work
// (unwinding, writing records) for its lifetime: a profiling signal that
// lands there records the program's stack from the collector's entry on,
// never what the collector called (libunwind, system calls).
// Inline with its initial-exec counter: every record and capture marks it.
__attribute__((tls_model("initial-exec"))) constinit inline thread_local int t_collector_work = 0;
class CollectorWork {
 public:
  CollectorWork() { ++t_collector_work; }
  ~CollectorWork() { --t_collector_work; }
  CollectorWork(const CollectorWork&) = delete;
  CollectorWork& operator=(const CollectorWork&) = delete;
};

// [signal-safe] Whether this thread is inside capture_stack. libunwind
// blocks every signal around its internal locks (sigprocmask with a full
// set); the mask interposers must let it, or a profiling signal arriving
// while the lock is held unwinds into the same lock and the thread
// deadlocks.
bool unwinding_now();

// Around fork (fork_safety.h). prepare waits until no other thread is
// inside libunwind, whose locks are process-wide, and keeps new ones out
// until parent or child runs: from then on, an interposer's capture waits
// for the fork to finish (for at most a few milliseconds, then its event
// goes without a stack, since the waiting thread may hold a lock the fork
// needs) and a handler's capture records no stack.
void unwinder_fork_prepare();
void unwinder_fork_parent();
void unwinder_fork_child();

}  // namespace lumen::collector
