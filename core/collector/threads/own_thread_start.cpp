#include "threads/own_thread_start.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lumen/collector_support.h>

#include <sched.h>

#include <atomic>

#include "threads/own_threads_alive.h"
#include "threads/program_thread_state.h"

namespace lumen::collector {

namespace {

// The new thread is known as the collector's before its creator goes on:
// collect -P's roll call, which may stop it at its first instruction,
// finds it so and leaves it be.
struct Start {
  void* (*body)(void*);
  void* argument;
  std::atomic<bool> known{false};
};

void* known_then_run(void* opaque) {
  auto* start = static_cast<Start*>(opaque);
  void* (*const body)(void*) = start->body;
  void* const argument = start->argument;
  collector_thread_begins();
  start->known.store(true, std::memory_order_release);  // `start` is the creator's from here
  return body(argument);
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
  Start start{body, argument};
  const bool started = real_create(thread, &attributes, known_then_run, &start) == 0;
  pthread_attr_destroy(&attributes);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, nullptr, sizeof(long));
  // No sleep here: a sleep from a thread collect -P stopped would end its
  // own interrupted sleep early.
  while (started && !start.known.load(std::memory_order_acquire)) sched_yield();
  return started;
}

}  // namespace lumen::collector
