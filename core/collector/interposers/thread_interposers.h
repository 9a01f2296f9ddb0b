// What the thread-creation and dlopen interposers offer the rest of the
// runtime: a thread's end heard through a key's destructor, and the
// program's calls redirected to them after an attach.
#pragma once

namespace lumen::collector {

// Not signal-safe in general; safe where no other thread-specific value
// of the calling thread was set yet beyond the first 32 keys' block (it
// then allocates nothing). The calling thread's end runs
// runtime_thread_end, as for a thread the runtime started.
void hear_thread_end_here();

// Not signal-safe. Where the runtime was loaded into a running process
// (collect -P): the program objects' calls to pthread_create, dlopen and
// dlclose are redirected to the runtime's (their GOT slots; not the C
// library's, the dynamic linker's, nor the runtime's and its libraries'),
// so threads created while attached are collected, and objects loaded
// while attached are recorded, unwound through, and redirected in turn.
void redirect_program_calls();

// [signal-safe] Once the redirected slots are put back: whether no thread
// is inside those interposers, nor created through them and not yet past
// its start's begin.
bool program_calls_left_runtime();

// Not signal-safe. No thread's end is heard any more (before the runtime
// is unloaded: the key's destructor is its code).
void stop_hearing_thread_ends();

}  // namespace lumen::collector
