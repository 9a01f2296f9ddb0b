// The collector's own threads that are alive now (the runtime's periodic
// threads, its /proc reader, plugins' threads), by thread id: a sampler
// that accounts for the process's CPU time subtracts theirs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lumen::collector {

// [signal-safe] The calling thread is one of the collector's, from now on
// until it calls collector_thread_ends (just before it returns). True when
// this listed it (false: listed already, or no room).
bool collector_thread_begins();
void collector_thread_ends();
// [signal-safe] Thread `tid`, just created by the caller, is one of them
// from now on: called before the thread's body runs (which may end it).
// True when this listed it.
bool collector_thread_created(uint32_t tid);

// [signal-safe] Copies the ids of the collector's live threads, at most
// `capacity`; returns how many were copied.
size_t collector_thread_ids(uint32_t* tids, size_t capacity);

// [signal-safe] Copies the ids of those that ended their listing since
// forget_ended_collector_threads, at most `capacity` (a detach waits for
// them to be gone: they run the runtime's code a while after).
size_t ended_collector_thread_ids(uint32_t* tids, size_t capacity);
void forget_ended_collector_threads();

// [signal-safe] Whether the calling thread is one of them.
bool is_collector_thread();

// A forked child has none of the parent's threads.
void forget_collector_threads();

}  // namespace lumen::collector
