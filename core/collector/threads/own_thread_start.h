// The runtime's own threads (periodic samplers, the /proc reader): created
// past the program's pthread_create interposers, so no plugin's
// thread_begin runs there, and with every signal blocked from their first
// instruction, so they never take a signal meant for the program (a
// process-directed signal goes to a thread that does not block it).
#pragma once

#include <pthread.h>

#include <cstddef>

namespace lumen::collector {

// Not signal-safe. False when the thread could not be created. Returns
// once the new thread is known as the collector's (collect -P's roll call
// then leaves it be), or at once inside a RuntimeThreadStarts of the
// calling thread's.
bool start_runtime_thread(pthread_t* thread, void* (*body)(void*), void* argument, size_t stack_bytes);

// While one lives, the threads its creator starts are awaited together, as
// it ends: each new thread needs a CPU before it is known, and on a busy
// machine (collect -P into a process whose threads hold every CPU) waiting
// for each in turn adds their waits up. One at a time; one created while
// another lives does nothing.
class RuntimeThreadStarts {
 public:
  RuntimeThreadStarts();
  ~RuntimeThreadStarts();
  RuntimeThreadStarts(const RuntimeThreadStarts&) = delete;
  RuntimeThreadStarts& operator=(const RuntimeThreadStarts&) = delete;

 private:
  bool owner_ = false;
};

}  // namespace lumen::collector
