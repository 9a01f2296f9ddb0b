#include "threads/own_thread_start.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lumen/collector_support.h>

#include "threads/program_thread_state.h"

namespace lumen::collector {

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
  const bool started = real_create(thread, &attributes, body, argument) == 0;
  pthread_attr_destroy(&attributes);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, nullptr, sizeof(long));
  return started;
}

}  // namespace lumen::collector
