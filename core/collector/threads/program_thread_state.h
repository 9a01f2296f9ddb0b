// Per-thread state of the collector runtime. A signal handler reaches it
// through one initial-exec TLS pointer, without calling into the dynamic
// linker; the state itself lives in the runtime's own pool
// (thread_state_pool.cpp), because a library loaded into a running process
// (collect -P) gets only what is left of glibc's static TLS reserve, under
// 2 KiB shared by every such library.
#pragma once

#include <lumen/record_format.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>

namespace lumen::collector {

inline constexpr int kMaxStreams = 32;

// The calling thread's current block of one data file. `used` is advanced
// with an add of one instruction (own_thread_fetch_add) so that a signal
// handler interrupting a write on the same thread reserves its own, disjoint
// space; no other thread touches a thread's blocks. Only the outermost writer
// (writers was 0 when it entered) may replace the block: a nested writer that
// finds no room writes its record in a block apart (below), so a block
// never moves under a writer.
// `base` and `capacity` are atomics (relaxed, ordered by signal fences in
// stream_writer.cpp) because a handler on this thread reads them while the
// outermost writer replaces the block.
struct ThreadBlock {
  std::atomic<char*> base{nullptr};
  std::atomic<uint32_t> used{0};
  std::atomic<uint32_t> capacity{0};
  std::atomic<uint32_t> writers{0};
  // The run of file-contiguous blocks the current block was taken from,
  // mapped with one mmap and unmapped with one munmap: each munmap of a
  // shared mapping is a TLB shootdown across the process's CPUs, which on a
  // virtual machine cost more than everything else a block's writes do.
  // Touched only by the outermost writer and at thread end.
  char* run_base = nullptr;
  uint64_t run_offset = 0;  // where the run starts in its file
  uint32_t run_blocks = 0;  // blocks in the run
  uint32_t run_next = 0;    // the next block of the run not yet handed out
  bool run_prepared = false;  // the run came from the run pool: its pages are writable already
  // A block apart for nested writers that found no room while the writer
  // they interrupted was changing blocks: the first maps it, later ones
  // append to it, and the outermost writer lets it go once its fresh block
  // is in (or the thread's streams finish).
  std::atomic<char*> apart_base{nullptr};
  std::atomic<uint32_t> apart_used{0};
};
static_assert(std::atomic<char*>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free,
              "read in signal handlers");

// The thread's latest interned stack (stack_table.cpp): a traced call in a
// loop asks for the same stack again and again, and comparing it with this
// is cheaper than hashing it and probing the shared table. `sequence` is odd
// while the entry is written; a signal handler interning on the same thread
// meanwhile neither uses nor writes it, and a lookup that a handler's write
// interrupted sees the sequence change and takes the table instead.
struct LatestInterned {
  uint32_t sequence = 0;
  uint32_t depth = 0;
  uint32_t flags = 0;
  uint64_t generation = 0;
  uint64_t id = 0;
  uint64_t pcs[LUMEN_MAX_STACK_DEPTH];
};

struct ThreadState {
  uint32_t tid = 0;
  bool finished = false;     // thread_end ran: further writes are dropped
  int interposer_depth = 0;  // >0 while the runtime itself is on the stack
  // The program's cancelability state when the plugins' re-entry guard
  // (lumen_guard_service.enter) disabled it; restored by leave.
  int cancel_state_to_restore = PTHREAD_CANCEL_ENABLE;
  // Where an off-CPU sampler charges time the thread spent runnable
  // (lumen_latest_stacks, read as three words by another thread): the id
  // of the latest stack captured on it, and the latest sample of its
  // running code (a capture from a profiling signal) with its time.
  struct LatestStacks {
    std::atomic<uint64_t> stack{~uint64_t{0}};
    std::atomic<uint64_t> sample_ns{0};
    std::atomic<uint64_t> sample_stack{~uint64_t{0}};
  } latest;
  // When its creator called pthread_create through the runtime while
  // collecting (lumen_thread_service.thread_created_ns); 0 otherwise.
  uint64_t created_ns = 0;
  // How many of the program's own handlers the signal chain ran on the
  // thread (for claimed signals): a wait that ends with EINTR while it did
  // not move, and no other handler could have run, was ended by the
  // collector alone, which the program must not see.
  std::atomic<uint32_t> program_handlers_run{0};
  // Inside the signal chain's dispatch of a claimed signal (collect -P
  // then leaves the thread be, and asks again).
  uint32_t in_dispatch = 0;
  // The plugins' thread_begin ran on this thread and their thread_end has
  // not yet (what collect -P's detach ends on each thread).
  bool collection_began = false;
  // The number of the fork this thread is making (set before it forks,
  // read in the child, which names its sub-experiment by it).
  int fork_number = 0;
  ThreadBlock blocks[kMaxStreams];
  LatestInterned latest_interned;
};

// The calling thread's state, or null before its first use. constinit: set
// up with the thread's TLS block, so no access goes through an
// initialization guard; initial-exec and inline: every access is one
// %fs-relative load in the caller, not a call (the record writer, the
// guards and the handlers reach it many times an event).
__attribute__((tls_model("initial-exec"))) constinit inline thread_local ThreadState* t_thread_state = nullptr;

// [signal-safe] Gives the calling thread its state (first use), or fills
// in its id (first use after a fork). A thread the pool has no room for
// shares one overflow state, and its records are dropped.
ThreadState& first_use_of_thread_state();

// [signal-safe] The calling thread's state; its tid is filled on first use.
inline ThreadState& current_thread() {
  ThreadState* state = t_thread_state;
  if (state == nullptr || state->tid == 0) [[unlikely]] return first_use_of_thread_state();
  return *state;
}

// [signal-safe] The calling thread's state goes back to the pool once the
// thread is gone (its last uses, in signal handlers as it exits, still find
// it). Called as the thread's collection ends.
void retire_thread_state();

// Not signal-safe. Unmaps the pool: no thread uses it any more (a detach).
void release_thread_states();

// [signal-safe] Kernel thread id of the calling thread (cached).
inline uint32_t current_tid() { return current_thread().tid; }

// [signal-safe] The program's deferred cancellation never acts inside the
// collector's own work: a pending request would act at the first
// cancellation point there (libunwind's read of its validation pipe, a
// plugin's I/O), in a call that is none for the program (malloc,
// pthread_mutex_lock), through frames that may not throw. Entering the
// runtime disables it, leaving restores the program's state, and its own
// cancellation points act as they would. The depth counts only while
// disabled, so a signal handler that finds the depth 0 saves and restores
// the state itself. (glibc's pthread_setcancelstate is an atomic update of
// the thread's own word: no lock, nothing a handler could deadlock on; an
// asynchronous cancellation pending at the restore acts there, as it would
// have anywhere in the program.)
inline int disable_cancellation() {
  int before = PTHREAD_CANCEL_ENABLE;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &before);
  return before;
}
inline void restore_cancellation(int before) {
  if (before != PTHREAD_CANCEL_DISABLE) pthread_setcancelstate(before, nullptr);
}

// [signal-safe] Marks the calling thread as running collector code for the
// guard's lifetime; `entered()` is false when it already was (nested).
class RuntimeGuard {
 public:
  RuntimeGuard() {
    ThreadState& thread = current_thread();
    if (thread.interposer_depth == 0) cancel_before_ = disable_cancellation();
    entered_ = thread.interposer_depth++ == 0;
  }
  ~RuntimeGuard() {
    --current_thread().interposer_depth;
    restore_cancellation(cancel_before_);
  }
  RuntimeGuard(const RuntimeGuard&) = delete;
  RuntimeGuard& operator=(const RuntimeGuard&) = delete;
  bool entered() const { return entered_; }

 private:
  int cancel_before_ = PTHREAD_CANCEL_DISABLE;  // nested: nothing to restore
  bool entered_ = false;
};

}  // namespace lumen::collector
