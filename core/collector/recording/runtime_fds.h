// The runtime's own file descriptors (data files, log, /proc readers,
// libunwind's validation pipe), kept out of the target's way: moved to or
// above the soft RLIMIT_NOFILE, where the program's open(), dup() and
// F_DUPFD never reach, so its descriptors are numbered as without collect
// even under a low `ulimit -n`; and protected from a target that closes
// every descriptor at start (its close() of one of them fails with EBADF,
// as it would have without collect). Each is remembered with its identity
// (device, inode): one the program closed anyway (a raw close_range
// system call) and reused is the program's, never the runtime's. A pipe
// closed that way (libunwind's, whose numbers libunwind keeps) is made
// again at its numbers before the runtime opens any file again.
#pragma once

#include <cstdint>

namespace lumen::collector {

// [signal-safe] Whether `fd` is one of the runtime's, still the file the
// runtime opened (a stale entry is forgotten).
bool is_runtime_fd(int fd);

// [signal-safe] The runtime's descriptors within [first, last], ascending,
// into `out` (at most `capacity`); returns how many.
int runtime_fds_between(unsigned first, unsigned last, int* out, int capacity);

// Not signal-safe. Whether numbers at or above the soft limit can be had
// (it can be raised for a moment) and are not so high that the kernel's
// table would grow to them: else the runtime's files stay out of the
// program's table (recording/file_keeper.h).
bool room_above_programs_descriptors();

// [signal-safe: system calls only] First makes lost pipes again (above).
// On a thread with a table of its own, `fd` is returned as it is.
// Moves `fd` at or above the soft limit
// (the limit raised for one fcntl and set back; where it cannot be, the
// highest free number below it), close-on-exec, marks it as the runtime's
// and returns the new number; on failure keeps `fd`.
int adopt_runtime_fd(int fd);

// Not signal-safe. Marks `fd`, opened by a library the runtime uses, as the
// runtime's where it is (its owner keeps the number).
void protect_runtime_fd(int fd);

// What an open descriptor is: its file's device and inode.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  bool operator==(const FileIdentity&) const = default;
};

// [signal-safe] The identity of what `fd` is open on; all zero when closed.
FileIdentity identity_of(int fd);

// [signal-safe] Whether `fd` is still open on the file it was opened on
// (`identity`): after a raw close_range its number may have been given to
// the program, or to another of the runtime's files opened again.
bool still_open_on(int fd, const FileIdentity& identity);

// [signal-safe] Closes a runtime descriptor for good (by system call, past
// the close interposer); one that is no longer the runtime's is only
// forgotten.
void close_runtime_fd(int fd);

}  // namespace lumen::collector
