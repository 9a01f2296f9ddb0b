// The runtime's own threads: each is listed as the collector's by the time
// its starter goes on, and unlisted at its end; small requests to the /proc
// reader from many threads at once each get their own answer.
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "procfs/reader_placement.h"
#include "procfs/small_requests.h"
#include "threads/own_thread_start.h"
#include "threads/own_threads_alive.h"

namespace lumen::test {
namespace {

uint32_t own_tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

size_t collector_threads_listed() {
  uint32_t tids[64];
  return collector::collector_thread_ids(tids, std::size(tids));
}

bool listed_as_collector(uint32_t tid) {
  uint32_t tids[64];
  const size_t count = collector::collector_thread_ids(tids, std::size(tids));
  return std::find(tids, tids + count, tid) != tids + count;
}

// A runtime thread's body: says its tid, then waits to be let go.
struct Started {
  std::atomic<uint32_t> tid{0};
  std::atomic<bool> go{false};
};
void* report_and_wait(void* opaque) {
  auto* started = static_cast<Started*>(opaque);
  started->tid.store(own_tid(), std::memory_order_release);
  while (!started->go.load(std::memory_order_acquire)) std::this_thread::yield();
  collector::collector_thread_ends();
  return nullptr;
}

TEST(RuntimeThreads, EachIsListedWhenItsStarterGoesOnAndUnlistedAtItsEnd) {
  std::vector<Started> started(12);
  std::vector<pthread_t> threads(started.size());
  const size_t before = collector_threads_listed();
  for (size_t i = 0; i < started.size(); ++i) {
    ASSERT_TRUE(collector::start_runtime_thread(&threads[i], report_and_wait, &started[i], 64 * 1024));
    EXPECT_EQ(collector_threads_listed(), before + i + 1);  // before it may even have run
  }
  for (Started& s : started) {
    while (s.tid.load(std::memory_order_acquire) == 0) std::this_thread::yield();
    EXPECT_TRUE(listed_as_collector(s.tid.load()));
  }
  for (Started& s : started) s.go.store(true, std::memory_order_release);
  for (pthread_t t : threads) pthread_join(t, nullptr);
  for (Started& s : started) EXPECT_FALSE(listed_as_collector(s.tid.load()));
  EXPECT_EQ(collector_threads_listed(), before);
}

// A thread whose body ends at once (a start that fails) is never left
// listed: its end comes after its starter listed it.
void* end_at_once(void*) {
  collector::collector_thread_ends();
  return nullptr;
}

TEST(RuntimeThreads, OneThatEndsAtOnceIsNotLeftListed) {
  const size_t before = collector_threads_listed();
  for (int i = 0; i < 200; ++i) {
    pthread_t thread;
    ASSERT_TRUE(collector::start_runtime_thread(&thread, end_at_once, nullptr, 64 * 1024));
    pthread_join(thread, nullptr);
  }
  EXPECT_EQ(collector_threads_listed(), before);
}

// A reader as the runtime's /proc reader serves small requests: its own
// thread, answering every slot asked at each wake-up.
class Reader {
 public:
  Reader() {
    running_.store(true, std::memory_order_release);  // after an earlier test's reader
    thread_ = std::thread([this] { serve(); });
  }
  ~Reader() {
    running_.store(false, std::memory_order_release);
    ring();
    thread_.join();
  }
  static void ring() {
    bell_.fetch_add(1, std::memory_order_acq_rel);
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&bell_), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
  static bool running() { return running_.load(std::memory_order_acquire); }
  long tid() const { return tid_.load(); }

 private:
  void serve() {
    tid_.store(syscall(SYS_gettid));
    // Started on the first CPU it may run on, then let run on all of them
    // (as the runtime's reader, which a program thread starts).
    cpu_set_t allowed, first;
    sched_getaffinity(0, sizeof allowed, &allowed);
    CPU_ZERO(&first);
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &allowed)) {
        CPU_SET(cpu, &first);
        break;
      }
    sched_setaffinity(0, sizeof first, &first);
    sched_setaffinity(0, sizeof allowed, &allowed);
    collector::reader_placement_start();
    const int task_dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    while (running()) {
      const uint32_t bell = bell_.load(std::memory_order_acquire);
      collector::serve_small_requests(true, task_dir);
      if (bell_.load(std::memory_order_acquire) == bell)
        syscall(SYS_futex, reinterpret_cast<uint32_t*>(&bell_), FUTEX_WAIT_PRIVATE, bell, nullptr, nullptr, 0);
    }
    collector::serve_small_requests(true, task_dir);
    close(task_dir);
  }
  static inline std::atomic<uint32_t> bell_{0};
  static inline std::atomic<bool> running_{true};
  std::atomic<long> tid_{0};
  std::thread thread_;
};

long tid_times_three(void* opaque) {
  const uint32_t asker = *static_cast<uint32_t*>(opaque);
  return asker * 3L + (syscall(SYS_gettid) == static_cast<long>(asker) ? 1 : 0);  // +1 if run on the asker
}

TEST(SmallRequests, ManyThreadsAskingAtOnceEachGetTheirOwnAnswer) {
  Reader reader;
  constexpr int kThreads = 96;  // more than the slots: some are told to ask another way
  constexpr int kRounds = 50;
  std::atomic<int> wrong{0}, answered{0}, no_slot{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> askers;
  for (int i = 0; i < kThreads; ++i)
    askers.emplace_back([&] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      uint32_t tid = own_tid();
      for (int round = 0; round < kRounds; ++round) {
        // Its own stat ("TID (comm) ...") and comm, in one request.
        char stat[512] = "", comm[64] = "";
        lumen_task_file files[2] = {{tid, "stat", stat, sizeof stat - 1, -1}, {tid, "comm", comm, sizeof comm - 1, -1}};
        collector::SmallAnswer answer = collector::ask_small_files(files, 2, Reader::running, Reader::ring);
        if (answer == collector::SmallAnswer::kNoSlot) {
          no_slot.fetch_add(1);
        } else if (answer != collector::SmallAnswer::kDone || files[0].bytes <= 0 || files[1].bytes <= 0 ||
                   std::string(stat).rfind(std::to_string(tid) + " (", 0) != 0) {
          wrong.fetch_add(1);
        } else {
          answered.fetch_add(1);
        }
        long result = 0;
        int error = 0;
        answer = collector::ask_small_work(tid_times_three, &tid, &result, &error, Reader::running, Reader::ring);
        if (answer == collector::SmallAnswer::kNoSlot)
          no_slot.fetch_add(1);
        else if (answer != collector::SmallAnswer::kDone || result != tid * 3L)  // run on the reader, for this asker
          wrong.fetch_add(1);
        else
          answered.fetch_add(1);
      }
    });
  go.store(true, std::memory_order_release);
  for (std::thread& t : askers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(answered.load() + no_slot.load(), kThreads * kRounds * 2);
  // How many fit a slot is the scheduler's (under a loaded CI, fewer than
  // half): some did, and every slot is free again once they are answered.
  EXPECT_GT(answered.load(), 0);
  uint32_t tid = own_tid();
  char stat[512] = "";
  lumen_task_file file{tid, "stat", stat, sizeof stat - 1, -1};
  EXPECT_EQ(collector::ask_small_files(&file, 1, Reader::running, Reader::ring), collector::SmallAnswer::kDone)
      << "a lone asker after them";
  EXPECT_EQ(std::string(stat).rfind(std::to_string(tid) + " (", 0), 0u) << stat;
}

TEST(SmallRequests, ACallerOfAStoppedReaderIsToldAtOnce) {
  static std::atomic<bool> serving{false};
  long result = 0;
  int error = 0;
  uint32_t tid = own_tid();
  const collector::SmallAnswer answer = collector::ask_small_work(
      tid_times_three, &tid, &result, &error, [] { return serving.load(); }, [] {});
  EXPECT_EQ(answer, collector::SmallAnswer::kNoReader);
  // The abandoned slot is freed by the next reader's pass, never served.
  const int task_dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  collector::serve_small_requests(true, task_dir);
  close(task_dir);
  EXPECT_EQ(result, 0);
}

// Two CPUs this process may run on, or none.
bool two_cpus(int* first, int* second) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return false;
  *first = *second = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE && *second < 0; ++cpu)
    if (CPU_ISSET(cpu, &allowed)) (*first < 0 ? *first : *second) = cpu;
  return *second >= 0;
}

void pin_to(int cpu) {
  cpu_set_t only;
  CPU_ZERO(&only);
  CPU_SET(cpu, &only);
  sched_setaffinity(0, sizeof only, &only);
}

TEST(ReaderPlacement, MovesOnlyWhereItMayRunAndGivesItsCpusBack) {
  int first, second;
  if (!two_cpus(&first, &second)) GTEST_SKIP() << "this process may run on one CPU only";
  std::thread([&] {
    cpu_set_t before;
    sched_getaffinity(0, sizeof before, &before);
    collector::reader_placement_start();
    EXPECT_TRUE(collector::move_reader_to(second));
    EXPECT_EQ(sched_getcpu(), second);
    collector::let_reader_roam();
    cpu_set_t after;
    sched_getaffinity(0, sizeof after, &after);
    EXPECT_TRUE(CPU_EQUAL(&before, &after));
    EXPECT_FALSE(collector::move_reader_to(CPU_SETSIZE + 1));
    EXPECT_FALSE(collector::move_reader_to(-1));
    pin_to(first);  // a reader started on one CPU stays there
    collector::reader_placement_start();
    EXPECT_FALSE(collector::move_reader_to(second));
  }).join();
}

// What the work saw: the CPU it ran on, and its asker's.
struct Placed {
  int asker_cpu = -1;
  std::atomic<int> ran_on{-1};
};
std::atomic<int> g_placed_asking{0};
std::atomic<bool> g_gate_open{false};

long note_cpu(void* opaque) {
  static_cast<Placed*>(opaque)->ran_on.store(sched_getcpu());
  return 0;
}

// Holds the reader until the askers on the other CPU have asked.
long gate(void*) {
  while (!g_gate_open.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return 0;
}

// Work asked from one CPU while the reader was busy runs on that CPU once
// several such requests wait (the kernel installs a counter for a thread
// from the CPU the thread waits on without an interrupt there).
TEST(SmallRequests, WorkWaitingOnAnotherCpuIsDoneFromThatCpu) {
  int first, second;
  if (!two_cpus(&first, &second)) GTEST_SKIP() << "this process may run on one CPU only";
  std::thread gate_asker([&] {
    pin_to(first);
    long result;
    int error;
    collector::ask_small_work(gate, nullptr, &result, &error, Reader::running, Reader::ring);
  });
  Reader reader;
  constexpr int kAskers = 6;
  Placed placed[kAskers];
  std::vector<std::thread> askers;
  for (Placed& p : placed)
    askers.emplace_back([&p, second] {
      pin_to(second);
      p.asker_cpu = sched_getcpu();
      g_placed_asking.fetch_add(1);
      long result;
      int error;
      collector::ask_small_work(note_cpu, &p, &result, &error, Reader::running, Reader::ring);
    });
  while (g_placed_asking.load() < kAskers) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // from counted to asked
  g_gate_open.store(true);
  for (std::thread& t : askers) t.join();
  gate_asker.join();
  int on_their_cpu = 0;
  for (const Placed& p : placed) {
    EXPECT_GE(p.ran_on.load(), 0);
    on_their_cpu += p.ran_on.load() == p.asker_cpu ? 1 : 0;
  }
  EXPECT_GE(on_their_cpu, 2) << "of " << kAskers;
}

}  // namespace
}  // namespace lumen::test
