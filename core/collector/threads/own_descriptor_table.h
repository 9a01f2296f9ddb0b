// The runtime's threads with a descriptor table of their own. While any
// thread of the runtime shares the program's table, the kernel takes a
// reference on the file at every read, write or other call on a
// descriptor (the quick path that skips it is for a table no other thread
// shares): some 55 ns a call here, a fifth of a dd of 4 KiB blocks, paid
// by a program that never knew the runtime had threads. A runtime thread
// instead takes a copy of the table, keeps the runtime's descriptors in it
// at their numbers, and closes its copies of the program's (they would keep
// a pipe or socket open after the program closed it). A runtime descriptor
// opened later in the program's table is brought over by its number
// (pidfd_getfd) the first time the thread finds it missing; such a thread
// never opens the runtime's files itself, so every number means the same
// file in both tables.
#pragma once

namespace lumen::collector {

// Not signal-safe. Gives the calling thread (one of the runtime's, created
// by start_runtime_thread) its own table holding the runtime's descriptors
// only (none, for a thread that opens only files of its own: the /proc
// reader). False, leaving it sharing the program's, where the kernel
// refuses.
bool take_own_descriptor_table(bool with_runtime_fds = true);

// [signal-safe] Whether the calling thread has one.
bool has_own_descriptor_table();

// [signal-safe] On a thread with its own table: copies descriptor `fd` of
// the program's table into this one at the same number. False when it
// cannot (no such descriptor there; the process's first thread, whose
// table pidfd_getfd reads, has exited).
bool bring_from_programs_table(int fd);

// Closes every descriptor of the calling thread's table but `keep[0..count)`
// (ascending). False when some could not be listed.
bool close_descriptors_except(const int* keep, int count);

}  // namespace lumen::collector
