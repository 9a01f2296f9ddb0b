// The /proc reader's open files, held in its private descriptor table
// (task_file_reader.h): a file read again, such as a thread's schedstat at
// every reading, costs one pread at offset 0 (which has the kernel write it
// anew) instead of a path lookup, a read and a close. Only the reading
// thread calls these.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lumen::collector {

// TID/NAME relative to `task_dir` (/proc/self/task), or /proc/self/NAME
// for tid 0, into `buffer`; the bytes read or -1.
long read_held_task_file(int task_dir, uint32_t tid, const char* name, char* buffer, size_t size);

// In a forked child: the descriptors belonged to the parent's reading
// thread's table, which the child does not have.
void forget_held_task_files();

}  // namespace lumen::collector
