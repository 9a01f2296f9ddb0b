// I/O tracing: the plugin's lifecycle, the descriptor -> file table, and the
// records. The interposers (io_interposers.cpp) time each call and hand the
// outcome here.
//
// Files are named once per process: opening a file (or meeting a descriptor
// the table does not know, such as one inherited or opened before collection
// started) gives it a file id and writes an IoFile record with its name;
// every call then carries the id. Names come from the path the program gave
// when it is absolute, else from readlink(/proc/self/fd/N); an open that
// failed has no descriptor, and is named by its path, joined to the working
// directory or to the directory descriptor it was relative to.
#include <fcntl.h>
#include <lumen/collector_support.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "../io_record.h"
#include "io_collector.h"

namespace lumen::io {
namespace {

// Descriptors below this have a table slot; above it, each call looks the
// name up again (a new file id each time).
constexpr int kTrackedDescriptors = 65536;
constexpr size_t kMaxName = 4096;

std::atomic<int> g_tracing{0};
static_assert(std::atomic<int>::is_always_lock_free, "read on every traced call");
// Written by start() before g_tracing is published (release).
const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;

std::atomic<uint32_t> g_file_of[kTrackedDescriptors];
std::atomic<uint32_t> g_next_file{1};
static_assert(std::atomic<uint32_t>::is_always_lock_free, "used on every traced call");

bool tracked(int fd) { return fd >= 0 && fd < kTrackedDescriptors; }

// Only with the runtime's guard held.
uint32_t new_file(const char* name, size_t length) {
  const uint32_t file = g_next_file.fetch_add(1, std::memory_order_relaxed);
  struct {
    IoFile header;
    char name[kMaxName];
  } record;
  if (length > kMaxName) length = kMaxName;
  record.header.file = file;
  record.header.name_bytes = static_cast<uint32_t>(length);
  std::memcpy(record.name, name, length);
  // A name later calls refer to, whenever they are recorded.
  lumen::write_kept_record(g_runtime, g_stream, kFileRecord, &record, static_cast<uint16_t>(sizeof(IoFile) + length));
  return file;
}

// The name the kernel gives the descriptor: a path, "pipe:[N]", "socket:[N]".
uint32_t file_from_proc(int fd) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char name[kMaxName];
  const ssize_t length = readlink(link, name, sizeof name);
  if (length <= 0) return 0;
  return new_file(name, static_cast<size_t>(length));
}

// The file a failed open asked for: `path`, made absolute from `directory`
// (AT_FDCWD: the working directory) when it is relative. As given when the
// directory cannot be named.
uint32_t file_asked_for(int directory, const char* path) {
  if (path == nullptr) return 0;
  const size_t path_length = std::strlen(path);
  if (path[0] == '/') return new_file(path, path_length);
  char name[kMaxName];
  ssize_t length;
  if (directory == AT_FDCWD) {
    // The system call, not getcwd(): it neither allocates nor takes a lock.
    length = syscall(SYS_getcwd, name, sizeof name) - 1;  // counted with its terminator
  } else {
    char link[64];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", directory);
    length = readlink(link, name, sizeof name);
  }
  if (length <= 0 || static_cast<size_t>(length) + 1 + path_length > sizeof name) return new_file(path, path_length);
  name[length] = '/';
  std::memcpy(name + length + 1, path, path_length);
  return new_file(name, static_cast<size_t>(length) + 1 + path_length);
}

// The file behind `fd`, naming it now if the table does not know it.
uint32_t file_of(int fd) {
  if (fd < 0) return 0;
  if (!tracked(fd)) return file_from_proc(fd);
  const uint32_t known = g_file_of[fd].load(std::memory_order_acquire);
  if (known != 0) return known;
  uint32_t file = file_from_proc(fd);
  uint32_t expected = 0;
  // Another thread may have named it meanwhile: keep the first name.
  if (file != 0 && !g_file_of[fd].compare_exchange_strong(expected, file, std::memory_order_acq_rel)) file = expected;
  return file;
}

void write_call(uint16_t call, int fd, uint32_t file, uint64_t start_ns, uint64_t end_ns, int64_t result, int error) {
  IoCall record{};
  record.start_ns = start_ns;
  record.duration_ns = end_ns > start_ns ? end_ns - start_ns : 0;
  record.result = result;
  // The stack starts at the program's call to read() & co.: the frames of
  // this object are left out by the runtime.
  record.stack_id = g_runtime->stacks->capture_stack(nullptr, 0);
  record.thread_id = g_runtime->threads->thread_id();
  record.fd = fd;
  record.file = file;
  record.call = call;
  record.error = result < 0 ? static_cast<uint16_t>(error) : 0;
  g_runtime->recording->write_record(g_stream, kCallRecord, &record, sizeof record);
}

// The runtime's re-entry guard for one record: false when the calling
// thread is already inside the collector (its own I/O is not traced).
struct Recording : lumen::TraceGuard {
  Recording() noexcept : lumen::TraceGuard(g_runtime) {}
};

int start(const lumen_runtime* runtime, const lumen_option_value*, size_t, char* error, size_t error_size) {
  g_runtime = runtime;
  g_stream = runtime->recording->open_stream(kDataFile);
  if (g_stream < 0) {
    std::snprintf(error, error_size, "cannot create the data file '%s'", kDataFile);
    return 1;
  }
  const IoStart begin{static_cast<uint32_t>(getpid()), 0};
  lumen::write_kept_record(runtime, g_stream, kStartRecord, &begin, sizeof begin);
  g_tracing.store(1, std::memory_order_release);
  return 0;
}

void stop() { g_tracing.store(0, std::memory_order_release); }

const lumen_flag_alias kFlagAliases[] = {{"on", ""}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "io",
    .version = "1.0",
    .data_file = kDataFile,
    .description = "I/O tracing: read, write, open, close, fsync, lseek, dup and their variants, with bytes, time, "
                   "descriptor, file name and stack",
    .flag = {"i", nullptr, kFlagAliases, 1, "-i on|off       I/O tracing (read, write, open, close, fsync, ...)"},
    .start = start,
    .stop = stop,
    .attach = LUMEN_WORKS_AFTER_ATTACH | LUMEN_INTERPOSES_AFTER_ATTACH,
    .calls_in_progress = lumen::interposed_calls_in_progress,
};

}  // namespace
}  // namespace lumen::io

using namespace lumen::io;

extern "C" {

// Also whether this thread may record: one whose collection ended (a
// thread that entered a seccomp sandbox, where even reading the clock may
// be a forbidden system call) is not timed.
int io_tracing(void) {
  if (g_tracing.load(std::memory_order_acquire) == 0) return 0;
  const Recording thread_records;
  return thread_records ? 1 : 0;
}

uint64_t io_now(void) { return g_runtime->time->now_ns(); }

__attribute__((noinline)) void io_record(uint16_t call, int fd, uint64_t start_ns, int64_t result) {
  const int saved_errno = errno;
  const uint64_t end_ns = io_now();
  if (Recording recording; recording) write_call(call, fd, file_of(fd), start_ns, end_ns, result, saved_errno);
  errno = saved_errno;
}

__attribute__((noinline)) void io_record_open(uint16_t call, int directory, const char* path, uint64_t start_ns,
                                              int64_t result) {
  const int saved_errno = errno;
  const uint64_t end_ns = io_now();
  const int fd = static_cast<int>(result);
  if (Recording recording; recording) {
    uint32_t file = 0;
    if (fd >= 0) {
      // A relative path (to the working directory or to a directory
      // descriptor) is named by the kernel.
      const bool absolute = path != nullptr && path[0] == '/';
      file = absolute ? new_file(path, std::strlen(path)) : file_from_proc(fd);
      if (tracked(fd)) g_file_of[fd].store(file, std::memory_order_release);
    } else {
      file = file_asked_for(directory, path);
    }
    write_call(call, fd, file, start_ns, end_ns, result, saved_errno);
  } else if (tracked(fd)) {
    g_file_of[fd].store(0, std::memory_order_release);  // named on first use
  }
  errno = saved_errno;
}

__attribute__((noinline)) void io_record_dup(uint16_t call, int old_fd, uint64_t start_ns, int64_t result) {
  const int saved_errno = errno;
  const uint64_t end_ns = io_now();
  const int fd = static_cast<int>(result);
  if (Recording recording; recording) {
    const uint32_t file = file_of(old_fd);
    if (fd >= 0 && tracked(fd)) g_file_of[fd].store(file, std::memory_order_release);
    write_call(call, fd >= 0 ? fd : old_fd, file, start_ns, end_ns, result, saved_errno);
  } else if (tracked(fd)) {
    g_file_of[fd].store(0, std::memory_order_release);
  }
  errno = saved_errno;
}

__attribute__((noinline)) void io_record_close(int fd, uint64_t start_ns, int64_t result) {
  const int saved_errno = errno;
  const uint64_t end_ns = io_now();
  if (Recording recording; recording) {
    const uint32_t file = tracked(fd) ? g_file_of[fd].load(std::memory_order_acquire) : 0;
    write_call(static_cast<uint16_t>(Call::kClose), fd, file, start_ns, end_ns, result, saved_errno);
  }
  // Closed (or never open): the number may come back for another file.
  if (result == 0 && tracked(fd)) g_file_of[fd].store(0, std::memory_order_release);
  errno = saved_errno;
}

}  // extern "C"

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin(void) { return &kPlugin; }
