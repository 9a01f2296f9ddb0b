// The I/O calls, interposed: each forwards to libc's function with its
// arguments, and returns its result and errno unchanged; while the plugin
// records, it also times the call and hands the outcome to the tracer.
//
// These definitions replace libc's because collect preloads the collector
// half (LD_PRELOAD), or, after collect -P, because the runtime points the
// process's bound calls at them. On x86-64, glibc 2.36 exports each of these
// names under one symbol version (objdump -T libc.so.6); the *64 names are
// the same functions under the names programs built with
// _FILE_OFFSET_BITS=64 use. Other architectures' base version differs
// (aarch64: GLIBC_2.17): these are x86-64's.
// The definitions carry the names io_NAME and are bound to glibc's names
// and symbol versions by the LUMEN_SYMVER lines at the end (io_exports.map
// declares the versions): a program binds NAME@GLIBC_x, and so does another
// preloaded object that forwards with dlvsym (the runtime does for close).
//
// stdio (fread, fwrite, ...) reaches the kernel through libc's internal
// calls, not through these names, and so is not traced.
#include <fcntl.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <lumen/collector_support.h>

#include "../io_record.h"
#include "io_collector.h"

namespace lumen::io {
namespace {

using lumen::InterposedCall;
using lumen::RealFunction;

constexpr uint16_t id(Call call) { return static_cast<uint16_t>(call); }

// Times `invoke` and records it as `call` on `fd`.
template <typename Invoke>
auto traced(Call call, int fd, Invoke invoke) {
  const InterposedCall in_call;
  if (!io_tracing()) return invoke();
  const uint64_t start = io_now();
  const auto result = invoke();
  io_record(id(call), fd, start, static_cast<int64_t>(result));
  return result;
}

template <typename Invoke>
int traced_open(Call call, int directory, const char* path, Invoke invoke) {
  const InterposedCall in_call;
  if (!io_tracing()) return invoke();
  const uint64_t start = io_now();
  const int fd = invoke();
  io_record_open(id(call), directory, path, start, fd);
  return fd;
}

template <typename Invoke>
int traced_dup(Call call, int old_fd, Invoke invoke) {
  const InterposedCall in_call;
  if (!io_tracing()) return invoke();
  const uint64_t start = io_now();
  const int fd = invoke();
  io_record_dup(id(call), old_fd, start, fd);
  return fd;
}

// open's mode argument is there only when the flags create a file.
bool takes_mode(int flags) { return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE; }

using ReadFn = ssize_t(int, void*, size_t);
using WriteFn = ssize_t(int, const void*, size_t);
using PreadFn = ssize_t(int, void*, size_t, off_t);
using PwriteFn = ssize_t(int, const void*, size_t, off_t);
using VectorFn = ssize_t(int, const iovec*, int);
using VectorAtFn = ssize_t(int, const iovec*, int, off_t);
using VectorAt2Fn = ssize_t(int, const iovec*, int, off_t, int);
using OpenFn = int(const char*, int, ...);
using OpenatFn = int(int, const char*, int, ...);
using CreatFn = int(const char*, mode_t);
using FdFn = int(int);
using SeekFn = off_t(int, off_t, int);
using Dup2Fn = int(int, int);
using Dup3Fn = int(int, int, int);
using FcntlFn = int(int, int, ...);

RealFunction<ReadFn> r_read{"read", "GLIBC_2.2.5"};
RealFunction<WriteFn> r_write{"write", "GLIBC_2.2.5"};
RealFunction<PreadFn> r_pread{"pread", "GLIBC_2.2.5"};
RealFunction<PwriteFn> r_pwrite{"pwrite", "GLIBC_2.2.5"};
RealFunction<VectorFn> r_readv{"readv", "GLIBC_2.2.5"};
RealFunction<VectorFn> r_writev{"writev", "GLIBC_2.2.5"};
RealFunction<VectorAtFn> r_preadv{"preadv", "GLIBC_2.10"};
RealFunction<VectorAtFn> r_pwritev{"pwritev", "GLIBC_2.10"};
RealFunction<VectorAt2Fn> r_preadv2{"preadv2", "GLIBC_2.26"};
RealFunction<VectorAt2Fn> r_pwritev2{"pwritev2", "GLIBC_2.26"};
RealFunction<OpenFn> r_open{"open", "GLIBC_2.2.5"};
RealFunction<OpenFn> r_open64{"open64", "GLIBC_2.2.5"};
RealFunction<OpenatFn> r_openat{"openat", "GLIBC_2.4"};
RealFunction<OpenatFn> r_openat64{"openat64", "GLIBC_2.4"};
RealFunction<CreatFn> r_creat{"creat", "GLIBC_2.2.5"};
RealFunction<CreatFn> r_creat64{"creat64", "GLIBC_2.2.5"};
RealFunction<FdFn> r_close{"close", "GLIBC_2.2.5"};
RealFunction<FdFn> r_fsync{"fsync", "GLIBC_2.2.5"};
RealFunction<FdFn> r_fdatasync{"fdatasync", "GLIBC_2.2.5"};
RealFunction<SeekFn> r_lseek{"lseek", "GLIBC_2.2.5"};
RealFunction<FdFn> r_dup{"dup", "GLIBC_2.2.5"};
RealFunction<Dup2Fn> r_dup2{"dup2", "GLIBC_2.2.5"};
RealFunction<Dup3Fn> r_dup3{"dup3", "GLIBC_2.9"};
RealFunction<FcntlFn> r_fcntl{"fcntl", "GLIBC_2.2.5"};
RealFunction<FcntlFn> r_fcntl64{"fcntl64", "GLIBC_2.28"};

int open_with(RealFunction<OpenFn>& real, const char* path, int flags, mode_t mode) {
  return traced_open(Call::kOpen, AT_FDCWD, path, [&] { return real.get()(path, flags, mode); });
}

int openat_with(RealFunction<OpenatFn>& real, int directory, const char* path, int flags, mode_t mode) {
  return traced_open(Call::kOpenat, directory, path, [&] { return real.get()(directory, path, flags, mode); });
}

int creat_with(RealFunction<CreatFn>& real, const char* path, mode_t mode) {
  return traced_open(Call::kCreat, AT_FDCWD, path, [&] { return real.get()(path, mode); });
}

// fcntl's third argument is an int, a long or a pointer by command; it is
// passed on as the register it came in, which is how glibc reads it too.
int fcntl_with(RealFunction<FcntlFn>& real, int fd, int command, void* argument) {
  const InterposedCall in_call;
  if (command != F_DUPFD && command != F_DUPFD_CLOEXEC) return real.get()(fd, command, argument);
  return traced_dup(Call::kFcntlDupfd, fd, [&] { return real.get()(fd, command, argument); });
}

}  // namespace
}  // namespace lumen::io

using namespace lumen::io;

LUMEN_EXPORT ssize_t io_read(int fd, void* buffer, size_t bytes) {
  return traced(Call::kRead, fd, [&] { return r_read.get()(fd, buffer, bytes); });
}
LUMEN_EXPORT ssize_t io_write(int fd, const void* buffer, size_t bytes) {
  return traced(Call::kWrite, fd, [&] { return r_write.get()(fd, buffer, bytes); });
}
LUMEN_EXPORT ssize_t io_pread(int fd, void* buffer, size_t bytes, off_t offset) {
  return traced(Call::kPread, fd, [&] { return r_pread.get()(fd, buffer, bytes, offset); });
}
LUMEN_EXPORT ssize_t io_pread64(int fd, void* buffer, size_t bytes, off_t offset) {
  return traced(Call::kPread, fd, [&] { return r_pread.get()(fd, buffer, bytes, offset); });
}
LUMEN_EXPORT ssize_t io_pwrite(int fd, const void* buffer, size_t bytes, off_t offset) {
  return traced(Call::kPwrite, fd, [&] { return r_pwrite.get()(fd, buffer, bytes, offset); });
}
LUMEN_EXPORT ssize_t io_pwrite64(int fd, const void* buffer, size_t bytes, off_t offset) {
  return traced(Call::kPwrite, fd, [&] { return r_pwrite.get()(fd, buffer, bytes, offset); });
}
LUMEN_EXPORT ssize_t io_readv(int fd, const iovec* vector, int count) {
  return traced(Call::kReadv, fd, [&] { return r_readv.get()(fd, vector, count); });
}
LUMEN_EXPORT ssize_t io_writev(int fd, const iovec* vector, int count) {
  return traced(Call::kWritev, fd, [&] { return r_writev.get()(fd, vector, count); });
}
LUMEN_EXPORT ssize_t io_preadv(int fd, const iovec* vector, int count, off_t offset) {
  return traced(Call::kPreadv, fd, [&] { return r_preadv.get()(fd, vector, count, offset); });
}
LUMEN_EXPORT ssize_t io_preadv64(int fd, const iovec* vector, int count, off_t offset) {
  return traced(Call::kPreadv, fd, [&] { return r_preadv.get()(fd, vector, count, offset); });
}
LUMEN_EXPORT ssize_t io_pwritev(int fd, const iovec* vector, int count, off_t offset) {
  return traced(Call::kPwritev, fd, [&] { return r_pwritev.get()(fd, vector, count, offset); });
}
LUMEN_EXPORT ssize_t io_pwritev64(int fd, const iovec* vector, int count, off_t offset) {
  return traced(Call::kPwritev, fd, [&] { return r_pwritev.get()(fd, vector, count, offset); });
}
LUMEN_EXPORT ssize_t io_preadv2(int fd, const iovec* vector, int count, off_t offset, int flags) {
  return traced(Call::kPreadv2, fd, [&] { return r_preadv2.get()(fd, vector, count, offset, flags); });
}
LUMEN_EXPORT ssize_t io_preadv64v2(int fd, const iovec* vector, int count, off_t offset, int flags) {
  return traced(Call::kPreadv2, fd, [&] { return r_preadv2.get()(fd, vector, count, offset, flags); });
}
LUMEN_EXPORT ssize_t io_pwritev2(int fd, const iovec* vector, int count, off_t offset, int flags) {
  return traced(Call::kPwritev2, fd, [&] { return r_pwritev2.get()(fd, vector, count, offset, flags); });
}
LUMEN_EXPORT ssize_t io_pwritev64v2(int fd, const iovec* vector, int count, off_t offset, int flags) {
  return traced(Call::kPwritev2, fd, [&] { return r_pwritev2.get()(fd, vector, count, offset, flags); });
}

LUMEN_EXPORT int io_open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (takes_mode(flags)) {
    va_list arguments;
    va_start(arguments, flags);
    mode = va_arg(arguments, mode_t);
    va_end(arguments);
  }
  return open_with(r_open, path, flags, mode);
}
LUMEN_EXPORT int io_open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (takes_mode(flags)) {
    va_list arguments;
    va_start(arguments, flags);
    mode = va_arg(arguments, mode_t);
    va_end(arguments);
  }
  return open_with(r_open64, path, flags, mode);
}
LUMEN_EXPORT int io_openat(int directory, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (takes_mode(flags)) {
    va_list arguments;
    va_start(arguments, flags);
    mode = va_arg(arguments, mode_t);
    va_end(arguments);
  }
  return openat_with(r_openat, directory, path, flags, mode);
}
LUMEN_EXPORT int io_openat64(int directory, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (takes_mode(flags)) {
    va_list arguments;
    va_start(arguments, flags);
    mode = va_arg(arguments, mode_t);
    va_end(arguments);
  }
  return openat_with(r_openat64, directory, path, flags, mode);
}
LUMEN_EXPORT int io_creat(const char* path, mode_t mode) { return creat_with(r_creat, path, mode); }
LUMEN_EXPORT int io_creat64(const char* path, mode_t mode) { return creat_with(r_creat64, path, mode); }

LUMEN_EXPORT int io_close(int fd) {
  const InterposedCall in_call;
  if (!io_tracing()) return r_close.get()(fd);
  const uint64_t start = io_now();
  const int result = r_close.get()(fd);
  io_record_close(fd, start, result);
  return result;
}
LUMEN_EXPORT int io_fsync(int fd) { return traced(Call::kFsync, fd, [&] { return r_fsync.get()(fd); }); }
LUMEN_EXPORT int io_fdatasync(int fd) { return traced(Call::kFdatasync, fd, [&] { return r_fdatasync.get()(fd); }); }
LUMEN_EXPORT off_t io_lseek(int fd, off_t offset, int whence) {
  return traced(Call::kLseek, fd, [&] { return r_lseek.get()(fd, offset, whence); });
}
LUMEN_EXPORT off_t io_lseek64(int fd, off_t offset, int whence) {
  return traced(Call::kLseek, fd, [&] { return r_lseek.get()(fd, offset, whence); });
}

LUMEN_EXPORT int io_dup(int fd) { return traced_dup(Call::kDup, fd, [&] { return r_dup.get()(fd); }); }
LUMEN_EXPORT int io_dup2(int fd, int target) {
  return traced_dup(Call::kDup2, fd, [&] { return r_dup2.get()(fd, target); });
}
LUMEN_EXPORT int io_dup3(int fd, int target, int flags) {
  return traced_dup(Call::kDup3, fd, [&] { return r_dup3.get()(fd, target, flags); });
}
LUMEN_EXPORT int io_fcntl(int fd, int command, ...) {
  va_list arguments;
  va_start(arguments, command);
  void* argument = va_arg(arguments, void*);
  va_end(arguments);
  return fcntl_with(r_fcntl, fd, command, argument);
}
LUMEN_EXPORT int io_fcntl64(int fd, int command, ...) {
  va_list arguments;
  va_start(arguments, command);
  void* argument = va_arg(arguments, void*);
  va_end(arguments);
  return fcntl_with(r_fcntl64, fd, command, argument);
}

// Looked up while the process is still single-threaded, before the runtime
// starts the plugin, so that the first traced calls do not pay for dlsym.
__attribute__((constructor)) static void io_resolve_at_load() {
  r_read.get(), r_write.get(), r_pread.get(), r_pwrite.get(), r_readv.get(), r_writev.get();
  r_preadv.get(), r_pwritev.get(), r_preadv2.get(), r_pwritev2.get();
  r_open.get(), r_open64.get(), r_openat.get(), r_openat64.get(), r_creat.get(), r_creat64.get();
  r_close.get(), r_fsync.get(), r_fdatasync.get(), r_lseek.get();
  r_dup.get(), r_dup2.get(), r_dup3.get(), r_fcntl.get(), r_fcntl64.get();
}

// DEFAULT ("@@"): the version a program linking today binds.
LUMEN_SYMVER(io_read, read, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_write, write, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_pread, pread, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_pread64, pread64, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_pwrite, pwrite, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_pwrite64, pwrite64, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_readv, readv, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_writev, writev, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_preadv, preadv, "GLIBC_2.10", DEFAULT);
LUMEN_SYMVER(io_preadv64, preadv64, "GLIBC_2.10", DEFAULT);
LUMEN_SYMVER(io_pwritev, pwritev, "GLIBC_2.10", DEFAULT);
LUMEN_SYMVER(io_pwritev64, pwritev64, "GLIBC_2.10", DEFAULT);
LUMEN_SYMVER(io_preadv2, preadv2, "GLIBC_2.26", DEFAULT);
LUMEN_SYMVER(io_preadv64v2, preadv64v2, "GLIBC_2.26", DEFAULT);
LUMEN_SYMVER(io_pwritev2, pwritev2, "GLIBC_2.26", DEFAULT);
LUMEN_SYMVER(io_pwritev64v2, pwritev64v2, "GLIBC_2.26", DEFAULT);
LUMEN_SYMVER(io_open, open, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_open64, open64, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_openat, openat, "GLIBC_2.4", DEFAULT);
LUMEN_SYMVER(io_openat64, openat64, "GLIBC_2.4", DEFAULT);
LUMEN_SYMVER(io_creat, creat, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_creat64, creat64, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_close, close, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_fsync, fsync, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_fdatasync, fdatasync, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_lseek, lseek, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_lseek64, lseek64, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_dup, dup, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_dup2, dup2, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_dup3, dup3, "GLIBC_2.9", DEFAULT);
LUMEN_SYMVER(io_fcntl, fcntl, "GLIBC_2.2.5", DEFAULT);
LUMEN_SYMVER(io_fcntl64, fcntl64, "GLIBC_2.28", DEFAULT);
