// The runtime's own file descriptors (data files, log, /proc readers), kept
// out of the target's way: moved to high numbers so the target's first
// open() gets the number it would get without collect, and protected from
// a target that closes every descriptor at start (its close() of one of
// them fails with EBADF, as it would have without collect).
#pragma once

namespace lumen::collector {

// [signal-safe] Whether `fd` is one of the runtime's.
bool is_runtime_fd(int fd);

// [signal-safe] The runtime's descriptors within [first, last], ascending,
// into `out` (at most `capacity`); returns how many.
int runtime_fds_between(unsigned first, unsigned last, int* out, int capacity);

// Not signal-safe. Moves `fd` to a high free number (close-on-exec), marks
// it as the runtime's and returns the new number; on failure keeps `fd`.
int adopt_runtime_fd(int fd);

// Not signal-safe. Marks `fd`, opened by a library the runtime uses, as the
// runtime's where it is (its owner keeps the number).
void protect_runtime_fd(int fd);

// [signal-safe] Closes a runtime descriptor for good (by system call, past
// the close interposer).
void close_runtime_fd(int fd);

}  // namespace lumen::collector
