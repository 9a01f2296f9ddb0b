// A copy of the dynamic linker's list of loaded objects that the runtime's
// own unwinding reads without taking the linker's lock.
//
// libunwind looks up unwind tables through dl_iterate_phdr while it holds
// its cache lock, and dl_iterate_phdr waits for the linker's lock. A thread
// holding the linker's lock (inside dlopen) whose profiling handler unwinds
// would wait for libunwind's lock, held by a thread waiting for the linker:
// neither moves again. Inside the runtime, dl_iterate_phdr therefore answers
// from this snapshot (thread_and_dlopen_interposers.cpp), which never waits.
#pragma once

#include <link.h>

#include <cstddef>
#include <cstdint>

namespace lumen::collector {

using PhdrCallback = int (*)(dl_phdr_info*, size_t, void*);

// Not signal-safe. Takes a new snapshot with the real dl_iterate_phdr (every
// signal blocked meanwhile) and publishes it. Snapshots it replaces are
// freed once no reader is inside them.
void object_snapshot_refresh();

// Not signal-safe. Refreshes if a lookup found nothing since the last
// refresh (an object loaded behind the runtime's back, as libc loads NSS
// modules), at most once every 10 ms.
void object_snapshot_refresh_if_missed();

// Around fork (fork_safety.cpp): no refresh is under way while the process
// is copied, or the child would inherit a refresh that no thread of its
// own finishes, and wait for it for ever at its first refresh.
void object_snapshot_fork_prepare();
void object_snapshot_fork_done();  // in the parent and in the child

// [signal-safe] dl_iterate_phdr over the latest snapshot: calls `callback`
// on each object until it returns non-zero and returns that value, or 0.
// The program headers and names are the snapshot's own copies, so an object
// unloaded since cannot take them with it.
int object_snapshot_iterate(PhdrCallback callback, void* data);

// [signal-safe] Whether `pc` lies in an executable segment of an object of
// the latest snapshot. Not finding it is no miss: generated code (a JIT's)
// lies in no object, and asking about it must not cause refreshes.
bool object_snapshot_holds_code(uint64_t pc);

// [signal-safe] Counts the snapshots published with a list of objects
// different from the one before: a different count, a different list of
// objects (reusable_capture.h keys on it).
uint64_t object_snapshot_generation();

// [signal-safe] Whether `address` lies in a loaded segment of an object of
// the latest snapshot (mapped while the object stays loaded). Sets
// [*start, *end) to that segment and `*writable` to whether it is loaded
// with write permission: the bytes of one without (code, unwind tables,
// read-only data) do not change while the object stays loaded.
bool object_snapshot_segment(uint64_t address, uint64_t* start, uint64_t* end, bool* writable);

// The real dl_iterate_phdr (the C library's, past any interposer).
int real_dl_iterate_phdr(PhdrCallback callback, void* data);

}  // namespace lumen::collector
