/* What the interposers (io_interposers.cpp) share with the plugin's
 * lifecycle and records (io_collector.cpp).
 *
 * Every function here keeps errno as the traced call left it. None may be
 * called from a signal handler the plugin installs (it installs none); they
 * are async-signal-safe all the same (atomics, the runtime's signal-safe
 * services, readlink and the getcwd system call only), because a program may
 * call read() or write() from its own signal handler. */
#ifndef LUMEN_IO_COLLECTOR_H
#define LUMEN_IO_COLLECTOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 while the plugin records and this thread may (not inside the runtime, its
 * collection not ended): an acquire load and the re-entry guard decide
 * whether a wrapper does more than forward. */
int io_tracing(void);

/* The experiment's clock (CLOCK_MONOTONIC), only when io_tracing() said 1. */
uint64_t io_now(void);

/* A read, write, fsync, lseek... on `fd` returned `result` after starting at
 * `start_ns`. */
void io_record(uint16_t call, int fd, uint64_t start_ns, int64_t result);

/* open/openat/creat returned `result` (a descriptor or -1) for `path`,
 * relative to `directory` (AT_FDCWD but for openat). */
void io_record_open(uint16_t call, int directory, const char* path, uint64_t start_ns, int64_t result);

/* dup and friends: `result` (when >= 0) now refers to what `old_fd` does. */
void io_record_dup(uint16_t call, int old_fd, uint64_t start_ns, int64_t result);

/* close(fd) returned `result`; the descriptor no longer names its file. */
void io_record_close(int fd, uint64_t start_ns, int64_t result);

#ifdef __cplusplus
}
#endif

#endif /* LUMEN_IO_COLLECTOR_H */
