#include "threads/own_thread_start.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lumen/collector_support.h>

#include <linux/futex.h>

#include <atomic>

#include "threads/own_threads_alive.h"
#include "threads/program_thread_state.h"

namespace lumen::collector {

namespace {

// The new thread is known as the collector's before its creator goes on:
// collect -P's roll call, which may stop it at its first instruction,
// finds it so and leaves it be. A start awaited later lives in a slot.
struct Start {
  void* (*body)(void*);
  void* argument;
  std::atomic<int> known{0};
};

void start_futex(std::atomic<int>& word, int operation, int value) {
  syscall(SYS_futex, reinterpret_cast<int*>(&word), operation, value, nullptr, nullptr, 0);
}

void* known_then_run(void* opaque) {
  auto* start = static_cast<Start*>(opaque);
  void* (*const body)(void*) = start->body;
  void* const argument = start->argument;
  collector_thread_begins();
  start->known.store(1, std::memory_order_release);
  start_futex(start->known, FUTEX_WAKE_PRIVATE, 1);  // `start` is the creator's from here: it may be gone once woken
  return body(argument);
}

// A futex wait, not a sleep: a sleep from a thread collect -P stopped
// would end its own interrupted sleep early. Nor a yield: on a busy CPU
// each gives a whole time slice away (2-3 ms seen).
void await_known(Start& start) {
  while (start.known.load(std::memory_order_acquire) == 0) start_futex(start.known, FUTEX_WAIT_PRIVATE, 0);
}

// The starts of the open RuntimeThreadStarts: its owner alone adds to them.
constexpr int kBatchSlots = 16;
Start g_batch[kBatchSlots];
int g_batch_used = 0;
std::atomic<uint32_t> g_batch_owner{0};  // the tid of the thread whose starts are batched

uint32_t starting_tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

bool batching() {
  const uint32_t owner = g_batch_owner.load(std::memory_order_acquire);
  return owner != 0 && owner == starting_tid() && g_batch_used < kBatchSlots;
}

}  // namespace

bool start_runtime_thread(pthread_t* thread, void* (*body)(void*), void* argument, size_t stack_bytes) {
  using PthreadCreate = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const auto real_create = lumen::next_function<PthreadCreate>("pthread_create", "GLIBC_2.34");
  if (real_create == nullptr) return false;
  sigset_t all, previous;
  sigfillset(&all);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &previous, sizeof(long));
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, stack_bytes);
  const RuntimeGuard guard;
  Start here{body, argument};
  const bool later = batching();
  Start& start = later ? g_batch[g_batch_used] : here;
  if (later) {
    start.body = body;
    start.argument = argument;
    start.known.store(0, std::memory_order_relaxed);
  }
  const bool started = real_create(thread, &attributes, known_then_run, &start) == 0;
  pthread_attr_destroy(&attributes);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, nullptr, sizeof(long));
  if (started && later) ++g_batch_used;
  if (started && !later) await_known(start);
  return started;
}

RuntimeThreadStarts::RuntimeThreadStarts() {
  uint32_t none = 0;
  owner_ = g_batch_owner.compare_exchange_strong(none, starting_tid(), std::memory_order_acq_rel);
  if (owner_) g_batch_used = 0;
}

RuntimeThreadStarts::~RuntimeThreadStarts() {
  if (!owner_) return;
  for (int i = 0; i < g_batch_used; ++i) await_known(g_batch[i]);
  g_batch_used = 0;
  g_batch_owner.store(0, std::memory_order_release);
}

}  // namespace lumen::collector
