#include "processes/program_end.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <atomic>
#include <cstring>

#include "threads/own_threads_alive.h"
#include "lifecycle/experiment_log.h"
#include "experiment_metadata.h"
#include "lifecycle/runtime_state.h"
#include "periodic/periodic_work.h"
#include "recording/stream_writer.h"
#include "procfs/task_file_reader.h"

namespace lumen::collector {

namespace {

constexpr long long kLookEveryNs = 100'000'000;
constexpr size_t kMaxListed = 64;

// The watch has a descriptor table of its own (own_descriptor_table.h).
// When the program's last thread has ended, glibc ends the process with
// exit(0) on the last thread left, this one: the atexit handlers and the
// flush of stdio's buffers then need the program's table, which went with
// its last thread. So when main leaves through pthread_exit (the one way
// such an ending flushes anything), a keeper started on main, sharing the
// program's table, takes the watch over.
PeriodicThread g_watch;
PeriodicThread g_keeper;
std::atomic<bool> g_keeper_started{false};

// Field `number` (1-based, as proc(5) counts) of a /proc stat line, after
// the command name in parentheses, which may hold spaces; null when absent.
const char* stat_field(char* line, long length, int number) {
  line[length] = '\0';
  char* at = std::strrchr(line, ')');
  if (at == nullptr) return nullptr;
  ++at;
  for (int field = 3; field < number; ++field) {
    while (*at == ' ') ++at;
    while (*at != ' ' && *at != '\0') ++at;
    if (*at == '\0') return nullptr;
  }
  while (*at == ' ') ++at;
  return *at != '\0' ? at : nullptr;
}

// Whether the main thread has ended (a zombie until the whole process
// ends); false when its state cannot be read.
bool main_thread_ended() {
  char line[512];
  const long length = read_task_file(static_cast<uint32_t>(getpid()), "stat", line, sizeof line - 1);
  if (length <= 0) return false;
  const char* state = stat_field(line, length, 3);
  return state != nullptr && (*state == 'Z' || *state == 'X');
}

bool same_threads(const uint32_t* a, size_t a_count, const uint32_t* b, size_t b_count) {
  return a_count == b_count && std::memcmp(a, b, a_count * sizeof *a) == 0;
}

// Whether no thread of the program is left: the process's threads are the
// ended main thread and the collector's. The collector's are listed before
// and after the count: a list that did not change in between holds only
// threads the count includes (one registers after it starts and leaves the
// list before it ends), so the program's are counted exactly or over.
bool no_program_thread_left() {
  if (!main_thread_ended()) return false;
  uint32_t before[kMaxListed], after[kMaxListed];
  const size_t listed = collector_thread_ids(before, kMaxListed);
  char line[1024];
  const long length = read_task_file(0, "stat", line, sizeof line - 1);
  if (length <= 0) return false;
  const char* threads = stat_field(line, length, 20);
  const size_t listed_after = collector_thread_ids(after, kMaxListed);
  if (threads == nullptr || listed == kMaxListed || !same_threads(before, listed, after, listed_after)) return false;
  return std::atol(threads) - 1 - static_cast<long>(listed) <= 0;
}

// How the main thread ended, as waitpid reports it (proc(5), field 52), or
// 0 when it cannot be read. Only the exit system call gives other than 0
// (pthread_exit ends the thread with 0).
int main_thread_exit_status() {
  char line[1024];
  const long length = read_task_file(static_cast<uint32_t>(getpid()), "stat", line, sizeof line - 1);
  const char* status = length > 0 ? stat_field(line, length, 52) : nullptr;
  return status != nullptr ? std::atoi(status) : 0;
}

// The process's thread count, read in the program's descriptor table: no
// thread of the program is left to be handed the number meanwhile.
long process_threads() {
  char line[1024];
  const int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, "/proc/self/stat", O_RDONLY | O_CLOEXEC, 0));
  if (fd < 0) return -1;
  const long length = syscall(SYS_read, fd, line, sizeof line - 1);
  syscall(SYS_close, fd);
  const char* threads = length > 0 ? stat_field(line, length, 20) : nullptr;
  return threads != nullptr ? std::atol(threads) : -1;
}

// The collector's threads that end by themselves (plugins' detached ones)
// end within moments of the stop: waits up to a second for the process to
// be the ended main thread and this one.
void wait_until_alone() {
  for (int i = 0; i < 1000 && process_threads() > 2; ++i) {
    const timespec millisecond{0, 1'000'000};
    nanosleep(&millisecond, nullptr);
  }
}

void look(PeriodicThread& watch) {
  if (!no_program_thread_left()) return;
  const int status = main_thread_exit_status();
  experiment_log_event(metadata::log_event::kNote,
                       "text: \"the program's last thread ended without exit (main left through pthread_exit, "
                       "or the exit system call): collection stopped, and the collector's threads ended\"");
  watch.stop_from_its_tick();
  stop_collection();
  wait_until_alone();
  // Returning lets glibc end the process: exit(0) when the program's threads
  // all ended through it (after pthread_exit), its atexit handlers run as
  // they would have. A main thread that made the exit system call with a
  // status is the process's status: the last thread to end gives it (Linux
  // 6.x; older kernels take the main thread's), so this thread ends with it.
  if (status != 0) {
    collector_thread_ends();
    syscall(SYS_exit, (status >> 8) & 0xff);
  }
}

void watch_look() {
  if (g_keeper_started.load(std::memory_order_acquire)) return g_watch.stop_from_its_tick();
  look(g_watch);
}
void keeper_look() { look(g_keeper); }

}  // namespace

void program_end_main_leaves() {
  if (g_keeper_started.exchange(true, std::memory_order_acq_rel)) return;
  g_keeper.start(kLookEveryNs, keeper_look, "lumen-end");
}

namespace {

// The main thread's leaving through pthread_exit, heard from a key's
// destructor (exit, and a return from main, run none).
pthread_key_t g_main_leaves_key;
bool g_main_leaves_key_made = false;

void on_main_leaving(void*) {
  if (static_cast<pid_t>(syscall(SYS_gettid)) == getpid()) program_end_main_leaves();
}

void hear_main_leave() {
  if (!g_main_leaves_key_made) g_main_leaves_key_made = pthread_key_create(&g_main_leaves_key, on_main_leaving) == 0;
  if (g_main_leaves_key_made) pthread_setspecific(g_main_leaves_key, &g_main_leaves_key);
}

}  // namespace

// The /proc reader's thread starts at its first read: made here, before
// main, its stack never takes the place of something the program unmaps
// and maps again (a library dlclosed and another dlopened where it was).
void program_end_watch_start() {
  main_thread_ended();
  hear_main_leave();
  g_watch.start(kLookEveryNs, watch_look, "lumen-end", true);
}
void program_end_watch_stop() {
  g_watch.stop();
  g_keeper.stop();
}
void program_end_watch_after_fork() {
  main_thread_ended();
  g_keeper.forget();
  g_keeper_started.store(false, std::memory_order_relaxed);
  hear_main_leave();  // the forking thread is the child's main
  g_watch.after_fork();
}
void program_end_watch_forget() {
  g_watch.forget();
  g_keeper.forget();
}

}  // namespace lumen::collector
