// The states plugin's readers of /proc files, on the texts the kernel
// writes (copied into memory files), and on this process's own files.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <string>

#include "../collector/proc_reader.h"

namespace lumen::states {
namespace {

class TextFile {
 public:
  explicit TextFile(const std::string& text) : fd_(memfd_create("proc-text", MFD_CLOEXEC)) {
    EXPECT_EQ(write(fd_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  ~TextFile() { close(fd_); }
  int fd() const { return fd_; }

 private:
  int fd_;
};

TEST(ProcReader, SchedstatHasCpuTimeRunDelayAndSwitches) {
  TextFile file("123456789 2345678 42\n");
  SchedStat s;
  ASSERT_TRUE(read_schedstat(file.fd(), &s));
  EXPECT_EQ(s.cpu_ns, 123456789u);
  EXPECT_EQ(s.delay_ns, 2345678u);
  EXPECT_EQ(s.switches, 42u);
}

TEST(ProcReader, StateLetterFollowsTheLastParenthesis) {
  TextFile file("4242 (a (b) c) D 1 4242 4242 0 -1 4194560 120 0 0 0\n");
  char state = '?';
  ASSERT_TRUE(read_state_letter(file.fd(), &state));
  EXPECT_EQ(state, 'D');
}

TEST(ProcReader, SyscallGivesCallStackPointerAndPc) {
  TextFile blocked("202 0x55d0c0 0x80 0x2 0x0 0x0 0x0 0x7ffc1234ab00 0x7f12345678ef\n");
  Whereabouts w;
  ASSERT_TRUE(read_syscall(blocked.fd(), &w));
  EXPECT_FALSE(w.running);
  EXPECT_EQ(w.call, 202);
  EXPECT_EQ(w.sp, 0x7ffc1234ab00u);
  EXPECT_EQ(w.pc, 0x7f12345678efu);

  TextFile fault("-1 0x7ffc00001000 0x401234\n");
  Whereabouts f;
  ASSERT_TRUE(read_syscall(fault.fd(), &f));
  EXPECT_EQ(f.call, -1);
  EXPECT_EQ(f.sp, 0x7ffc00001000u);
  EXPECT_EQ(f.pc, 0x401234u);

  TextFile running("running\n");
  Whereabouts r;
  ASSERT_TRUE(read_syscall(running.fd(), &r));
  EXPECT_TRUE(r.running);

  TextFile empty("");
  Whereabouts e;
  EXPECT_FALSE(read_syscall(empty.fd(), &e));
}

int open_task_file(long tid, const char* name) {
  const std::string path = "/proc/self/task/" + std::to_string(tid) + "/" + name;
  return open(path.c_str(), O_RDONLY | O_CLOEXEC);
}

TEST(ProcReader, ReadsThisThreadsOwnFilesAgainAtEachRead) {
  const int fd = open_task_file(syscall(SYS_gettid), "schedstat");
  ASSERT_GE(fd, 0);
  SchedStat first, second;
  ASSERT_TRUE(read_schedstat(fd, &first));
  volatile double x = 1;
  for (int i = 0; i < 20'000'000; ++i) x = x * 1.0000001;
  ASSERT_TRUE(read_schedstat(fd, &second));
  EXPECT_GT(second.cpu_ns, first.cpu_ns);  // pread at 0 reads the counters anew
  close(fd);
  const int stat = open_task_file(syscall(SYS_gettid), "stat");
  char state = '?';
  ASSERT_TRUE(read_state_letter(stat, &state));
  EXPECT_EQ(state, 'R');
  close(stat);
}

// A thread blocked on a pipe does not run: its CPU-time clock stands still
// until it is woken; once it has ended and been joined the clock is gone.
TEST(ProcReader, AnotherThreadsCpuClockMovesOnlyWhenItRuns) {
  int wake[2];
  ASSERT_EQ(pipe(wake), 0);
  std::atomic<uint32_t> tid{0};
  std::thread sleeper([&] {
    tid = static_cast<uint32_t>(syscall(SYS_gettid));
    char byte;
    EXPECT_EQ(read(wake[0], &byte, 1), 1);
    volatile double x = 1;
    for (int i = 0; i < 5'000'000; ++i) x = x * 1.0000001;
  });
  while (tid.load() == 0) sched_yield();
  // Blocked in read once its schedstat stops moving and stat says S.
  char state = '?';
  for (int tries = 0; tries < 1000 && state != 'S'; ++tries) {
    usleep(1000);
    const int stat = open_task_file(tid, "stat");
    ASSERT_GE(stat, 0);
    read_state_letter(stat, &state);
    close(stat);
  }
  ASSERT_EQ(state, 'S');
  uint64_t first = 0, second = 0, after = 0;
  ASSERT_TRUE(thread_cpu_clock_ns(tid, &first));
  usleep(20'000);
  ASSERT_TRUE(thread_cpu_clock_ns(tid, &second));
  EXPECT_EQ(first, second);
  ASSERT_EQ(write(wake[1], "x", 1), 1);
  const uint32_t ended = tid;
  sleeper.join();
  EXPECT_FALSE(thread_cpu_clock_ns(ended, &after));
  close(wake[0]);
  close(wake[1]);
}

}  // namespace
}  // namespace lumen::states
