// The runtime's own threads (periodic samplers, the /proc reader): created
// past the program's pthread_create interposers, so no plugin's
// thread_begin runs there, and with every signal blocked from their first
// instruction, so they never take a signal meant for the program (a
// process-directed signal goes to a thread that does not block it).
#pragma once

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace lumen::collector {

// Not signal-safe. False when the thread could not be created. The new
// thread is listed as the collector's (own_threads_alive.h) when this
// returns, whether or not it has run yet.
bool start_runtime_thread(pthread_t* thread, void* (*body)(void*), void* argument, size_t stack_bytes);

// Not signal-safe. `told(tid)` is called for each thread started from now
// on, as it is listed (the experiment's log names it for collect -P).
void tell_runtime_threads_to(void (*told)(uint32_t tid));

}  // namespace lumen::collector
