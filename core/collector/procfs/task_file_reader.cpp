#include "procfs/task_file_reader.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>


#include "threads/own_threads_alive.h"
#include "lifecycle/experiment_log.h"
#include "procfs/held_task_files.h"
#include "procfs/reader_placement.h"
#include "procfs/small_requests.h"
#include "lifecycle/runtime_state.h"
#include "threads/own_descriptor_table.h"
#include "threads/own_thread_start.h"
#include "threads/program_thread_state.h"

namespace lumen::collector {

namespace {

// /proc files a plugin reads are short (stat is a few hundred bytes): a
// request carries up to kMaxFiles of them, their bytes in one arena; a
// longer batch is asked in several requests.
constexpr size_t kMaxFiles = 512;
constexpr size_t kArenaBytes = 256 * 1024;
// A reading thread that has not answered within this long is stuck (it
// never blocks on anything but the request): reads fail from then on
// rather than hang the plugin's thread.
constexpr long long kAnswerWithinNs = 2'000'000'000;

// All zero until asked: the request is constant-initialized (constinit),
// so no constructor of this file's, run after the runtime's own began
// collection in a preloaded process, can reset one under way. The asker
// sets what it asks; the thread sets the answer.
struct FileAsked {
  uint32_t tid;
  char name[32];
  size_t size;
  size_t offset;  // of its bytes in the arena
  long result;
};

struct Request {
  size_t count;
  bool private_table;  // false: the thread cannot read for the caller
  long (*work)(void*);  // or: this to run there
  void* argument;
  long work_result;
  int work_errno;
  FileAsked files[kMaxFiles];
  char bytes[kArenaBytes];
};

enum ReaderState : int { kNoThread, kRunning, kUnavailable, kStuck, kStopped };

// A file's `bytes` while it is being read: not asked yet, or not to be
// asked (an invalid name, no buffer).
constexpr long kUnread = -2;
constexpr long kInvalid = -3;

constinit Request g_request;
std::atomic<uint32_t> g_doorbell{0};  // rung by every request and the stop; the thread waits on it
std::atomic<uint32_t> g_asked{0};     // the latest request's number (g_request)
std::atomic<uint32_t> g_answered{0};  // the latest answer's number; callers wait on it
std::atomic<uint32_t> g_lock{0};      // one request at a time
std::atomic<int> g_stop{0};
std::atomic<int> g_state{kNoThread};
pthread_t g_thread{};

long futex(std::atomic<uint32_t>* word, int operation, uint32_t value, const timespec* timeout) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "used as a futex word");
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), operation, value, timeout, nullptr, 0);
}

void lock() {
  while (g_lock.exchange(1, std::memory_order_acquire) != 0) futex(&g_lock, FUTEX_WAIT_PRIVATE, 1, nullptr);
}
void unlock() {
  g_lock.store(0, std::memory_order_release);
  futex(&g_lock, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

int raw_openat(int directory, const char* path, int flags) {
  return static_cast<int>(syscall(SYS_openat, directory, path, flags, 0));
}

// Reads the file by system call: the runtime's own reads never reach an
// interposer.
long read_whole(const char* path, char* buffer, size_t size) {
  const int fd = raw_openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t filled = 0;
  while (filled < size) {
    const long n = syscall(SYS_read, fd, buffer + filled, size - filled);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      filled = 0;
      break;
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  syscall(SYS_close, fd);
  return filled > 0 ? static_cast<long>(filled) : -1;
}

// Where the reading thread cannot have a table of its own: opened, read
// and closed at once in the program's table.
long read_in_programs_table(uint32_t tid, const char* name, char* buffer, size_t size) {
  char path[64];
  if (tid == 0)
    std::snprintf(path, sizeof path, "/proc/self/%s", name);
  else
    std::snprintf(path, sizeof path, "/proc/self/task/%u/%s", tid, name);
  return read_whole(path, buffer, size);
}

long long monotonic_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// Waits a few microseconds on a CPU for `word` to change from `value` (an
// answer, read from /proc in microseconds, comes sooner than a sleeping
// caller would wake);
// returns what it then holds (still `value` when it did not change).
uint32_t spin_while_equal(const std::atomic<uint32_t>& word, uint32_t value) {
  constexpr long long kSpinNs = 10'000;
  const long long until = monotonic_ns() + kSpinNs;
  uint32_t now = word.load(std::memory_order_acquire);
  for (int i = 0; now == value; ++i) {
    __builtin_ia32_pause();
    if ((i & 63) == 63 && monotonic_ns() > until) break;
    now = word.load(std::memory_order_acquire);
  }
  return now;
}

void* run(void*) {
  const RuntimeGuard guard;  // the runtime's own thread for its whole life
  pthread_setname_np(pthread_self(), "lumen-proc");
  mark_collector_thread();  // while the log's descriptor is still in this thread's table
  const bool own_table = take_own_descriptor_table(false);
  const int task_dir = own_table ? raw_openat(AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  reader_placement_start();
  uint32_t served = 0;
  for (;;) {
    // It sleeps between requests: spinning for the next one of a reading
    // cost more CPU (the sampler unwinds between them) than waking does.
    // The bell is read before the requests are looked at: one asked after
    // that rings it again, and the wait returns at once.
    const uint32_t bell = g_doorbell.load(std::memory_order_acquire);
    if (g_stop.load(std::memory_order_acquire) != 0) break;
    serve_small_requests(own_table, task_dir);
    const uint32_t asked = g_asked.load(std::memory_order_acquire);
    if (asked != served) {
      served = asked;
      Request& r = g_request;
      r.private_table = own_table;
      if (r.work != nullptr && own_table) {
        errno = 0;
        r.work_result = r.work(r.argument);
        r.work_errno = errno;
      }
      for (size_t i = 0; own_table && i < r.count; ++i) {
        FileAsked& f = r.files[i];
        f.result = read_held_task_file(task_dir, f.tid, f.name, r.bytes + f.offset, f.size);
      }
      g_answered.store(served, std::memory_order_release);
      futex(&g_answered, FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr);
    }
    if (g_doorbell.load(std::memory_order_acquire) == bell) futex(&g_doorbell, FUTEX_WAIT_PRIVATE, bell, nullptr);
  }
  serve_small_requests(own_table, task_dir);  // those asked before the stop was seen
  collector_thread_ends();
  return nullptr;
}

bool start_thread() { return start_runtime_thread(&g_thread, run, nullptr, 64 * 1024); }

void ring() {
  g_doorbell.fetch_add(1, std::memory_order_acq_rel);
  futex(&g_doorbell, FUTEX_WAKE_PRIVATE, 1, nullptr);
}

bool reader_running() { return g_state.load(std::memory_order_acquire) == kRunning; }

// Starts the reading thread on the first request.
void start_reader_once() {
  if (g_state.load(std::memory_order_acquire) != kNoThread) return;
  lock();
  if (g_state.load(std::memory_order_acquire) == kNoThread)
    g_state.store(start_thread() ? kRunning : kUnavailable, std::memory_order_release);
  unlock();
}

void note(const char* text) { experiment_log_event(metadata::log_event::kNote, "text: " + yaml_quoted(text)); }

enum class Answer { kRead, kNoPrivateTable, kLate };

void no_private_table() {
  if (g_state.exchange(kUnavailable, std::memory_order_acq_rel) == kRunning)
    note("the runtime's /proc reading thread cannot have a descriptor table of its own (unshare refused): "
         "thread files are read with a descriptor of the program's table for a moment");
}

void stuck() {
  int running = kRunning;
  if (g_state.compare_exchange_strong(running, kStuck, std::memory_order_acq_rel))
    note("the runtime's /proc reading thread did not answer within 2 s: thread files are not read from now on");
}

// A small request in a slot of its own: false when it must be asked the
// one-at-a-time way (no slot free), true when answered or refused.
bool small_answer_taken(SmallAnswer answer) {
  if (answer == SmallAnswer::kNoPrivateTable) no_private_table();
  if (answer == SmallAnswer::kNoReader && reader_running()) stuck();
  return answer != SmallAnswer::kNoSlot;
}

// Asks the thread for the files of g_request.
Answer ask() {
  const uint32_t number = g_asked.load(std::memory_order_relaxed) + 1;
  g_asked.store(number, std::memory_order_release);
  ring();
  constexpr long long kSliceNs = 100'000'000;
  long long deadline_ns = monotonic_ns() + kAnswerWithinNs;
  spin_while_equal(g_answered, number - 1);  // a /proc file is read in microseconds
  for (uint32_t answered; (answered = g_answered.load(std::memory_order_acquire)) != number;) {
    const long long before = monotonic_ns();
    const long long left = deadline_ns - before;
    if (left <= 0) {
      stuck();
      return Answer::kLate;
    }
    // In slices: a wait that took far longer than its slice was the whole
    // process stopped (SIGSTOP, SIGTSTP), the reading thread with it, and
    // does not count against the thread.
    const long long slice = left < kSliceNs ? left : kSliceNs;
    const timespec timeout{static_cast<time_t>(slice / 1'000'000'000), static_cast<long>(slice % 1'000'000'000)};
    futex(&g_answered, FUTEX_WAIT_PRIVATE, answered, &timeout);
    const long long waited = monotonic_ns() - before;
    if (waited > 2 * kSliceNs) deadline_ns += waited - slice;
  }
  return g_request.private_table ? Answer::kRead : Answer::kNoPrivateTable;
}

bool valid(const lumen_task_file& file) {
  return file.name != nullptr && file.buffer != nullptr && file.size > 0 &&
         std::strlen(file.name) < sizeof FileAsked::name && std::strchr(file.name, '/') == nullptr;
}

size_t asked_size(const lumen_task_file& file) { return file.size < kArenaBytes ? file.size : kArenaBytes; }

// Has the thread read the valid files of files[from, to), which fit one
// request.
void read_by_thread(lumen_task_file* files, size_t from, size_t to) {
  Request& r = g_request;
  r.count = 0;
  size_t used = 0;
  for (size_t i = from; i < to; ++i) {
    if (files[i].bytes == kInvalid) continue;
    FileAsked& f = r.files[r.count++];
    f.tid = files[i].tid;
    std::snprintf(f.name, sizeof f.name, "%s", files[i].name);
    f.size = asked_size(files[i]);
    f.offset = used;
    f.result = -1;
    used += f.size;
  }
  const Answer answer = ask();
  if (answer == Answer::kNoPrivateTable) {
    no_private_table();
    return;
  }
  size_t asked = 0;
  for (size_t i = from; i < to; ++i) {
    if (files[i].bytes == kInvalid) continue;
    const FileAsked& f = r.files[asked++];
    files[i].bytes = answer == Answer::kRead ? f.result : -1;
    if (files[i].bytes > 0) std::memcpy(files[i].buffer, r.bytes + f.offset, static_cast<size_t>(files[i].bytes));
  }
}

// What no reading thread read, read in the program's table where the
// thread cannot have one of its own; the count read.
size_t finish_files(lumen_task_file* files, size_t count) {
  if (g_state.load(std::memory_order_acquire) == kUnavailable)
    for (size_t i = 0; i < count; ++i)
      if (files[i].bytes == kUnread)
        files[i].bytes = read_in_programs_table(files[i].tid, files[i].name, files[i].buffer, files[i].size);
  size_t read = 0;
  for (size_t i = 0; i < count; ++i) {
    if (files[i].bytes < 0) files[i].bytes = -1;
    read += files[i].bytes > 0 ? 1 : 0;
  }
  return read;
}

}  // namespace

size_t read_task_files(lumen_task_file* files, size_t count) {
  if (files == nullptr || count == 0) return 0;
  bool all_valid = true;
  for (size_t i = 0; i < count; ++i) {
    files[i].bytes = valid(files[i]) ? kUnread : kInvalid;
    all_valid = all_valid && files[i].bytes != kInvalid;
  }
  const RuntimeGuard guard;
  start_reader_once();
  if (all_valid && fits_small_request(files, count) && reader_running() &&
      small_answer_taken(ask_small_files(files, count, reader_running, ring)))
    return finish_files(files, count);
  lock();
  // In runs that fit one request: as many files as it holds, their bytes
  // within its arena.
  for (size_t from = 0; from < count && g_state.load(std::memory_order_acquire) == kRunning;) {
    size_t to = from, files_in = 0, bytes_in = 0;
    for (; to < count; ++to) {
      if (files[to].bytes == kInvalid) continue;
      if (files_in == kMaxFiles || bytes_in + asked_size(files[to]) > kArenaBytes) break;
      ++files_in, bytes_in += asked_size(files[to]);
    }
    if (files_in > 0) read_by_thread(files, from, to);
    from = to;
  }
  unlock();
  return finish_files(files, count);
}

long run_in_own_table(long (*work)(void*), void* argument) {
  if (work == nullptr) return errno = EINVAL, -1;
  const RuntimeGuard guard;
  start_reader_once();
  long result = -1;
  int error = ENOTSUP;
  if (reader_running()) {
    const SmallAnswer answer = ask_small_work(work, argument, &result, &error, reader_running, ring);
    if (small_answer_taken(answer)) {
      if (answer != SmallAnswer::kDone) result = -1, error = ENOTSUP;
      errno = error;
      return result;
    }
  }
  lock();
  if (g_state.load(std::memory_order_acquire) == kRunning) {
    Request& r = g_request;
    r.count = 0;
    r.work = work;
    r.argument = argument;
    r.work_result = -1;
    r.work_errno = ENOTSUP;
    const Answer answer = ask();
    if (answer == Answer::kRead) result = r.work_result, error = r.work_errno;
    if (answer == Answer::kNoPrivateTable) no_private_table();
    r.work = nullptr;
  }
  unlock();
  errno = error;
  return result;
}

long read_task_file(uint32_t tid, const char* name, char* buffer, size_t size) {
  lumen_task_file file{tid, name, buffer, size, -1};
  read_task_files(&file, 1);
  return file.bytes;
}

void task_file_reader_start() { start_reader_once(); }

void task_file_reader_stop() {
  lock();
  if (g_state.load(std::memory_order_acquire) == kRunning) {
    g_stop.store(1, std::memory_order_release);
    ring();
    pthread_join(g_thread, nullptr);
  }
  g_state.store(kStopped, std::memory_order_release);
  // A small request asked after the thread's last look is let go: its
  // caller, woken, sees the reader stopped.
  wake_small_requests();
  unlock();
}

void task_file_reader_after_fork() {
  g_lock.store(0, std::memory_order_relaxed);
  g_stop.store(0, std::memory_order_relaxed);
  g_doorbell.store(0, std::memory_order_relaxed);
  g_asked.store(0, std::memory_order_relaxed);
  g_answered.store(0, std::memory_order_relaxed);
  forget_small_requests();
  g_state.store(kNoThread, std::memory_order_relaxed);
  forget_held_task_files();
}

}  // namespace lumen::collector
