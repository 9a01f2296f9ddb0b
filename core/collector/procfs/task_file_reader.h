// Reading a thread's /proc files without a descriptor in the program's
// table. The kernel hands out the lowest free number, so even a file opened
// and closed at once takes, for that moment, a number the program may be
// about to get: a program opening descriptors up to its limit would meet
// EMFILE one early, one counting on which number comes next would get
// another. Files are opened instead on a runtime thread that has unshared
// its descriptor table (and closed every copy of the program's in it), and
// the bytes are handed back.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstddef>
#include <cstdint>

namespace lumen::collector {

// Not signal-safe. One file of read_task_files: /proc/self/task/TID/NAME,
// or /proc/self/NAME for tid 0, into `buffer`; the bytes read or -1.
long read_task_file(uint32_t tid, const char* name, char* buffer, size_t size);

// Not signal-safe. lumen_thread_service::read_task_files: each file as
// read_task_file reads it, all in one request of the reading thread (or a
// few, for more files than a request holds); returns how many were read.
size_t read_task_files(lumen_task_file* files, size_t count);

// Not signal-safe. lumen_thread_service::run_in_own_table: `work(argument)`
// on the reading thread, or -1 (errno ENOTSUP) where it has no table of
// its own.
long run_in_own_table(long (*work)(void*), void* argument);

// Not signal-safe. Starts the reading thread now rather than at the first
// request.
void task_file_reader_start();

// Not signal-safe. Ends the reading thread (after the plugins' last
// readings at the end of collection).
void task_file_reader_stop();

// In a forked child: the parent's reading thread does not exist here; the
// next read starts one of the child's own.
void task_file_reader_after_fork();

}  // namespace lumen::collector
