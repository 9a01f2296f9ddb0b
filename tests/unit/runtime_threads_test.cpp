// The runtime's own threads: each is listed as the collector's by the time
// its starter goes on, and unlisted at its end; small requests to the /proc
// reader from many threads at once each get their own answer.
#include <fcntl.h>
#include <linux/futex.h>
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
  Reader() : thread_([this] { serve(); }) {}
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

}  // namespace
}  // namespace lumen::test
