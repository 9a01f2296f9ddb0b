// A stack captured inside the collector's own signal handler (an event its
// work caused: a page fault of its buffers) belongs to the function the
// signal interrupted: past the collector's frames, the C library's signal
// trampoline is left out too, and the frame after it is the interrupted PC
// (no return address). A program's own handler keeps its trampoline.
// This executable stands for the collector: its own code is excluded, as
// the runtime excludes liblumen_collector.so.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include "recording/stream_writer.h"
#include "stacks/stack_capture.h"
#include "stacks/stack_table.h"
#include "test_support.h"

namespace lumen::test {
namespace {

namespace lc = lumen::collector;

void ignore(int) {}

// The trampoline the C library's sigaction gives a handler (sa_restorer).
uint64_t trampoline() {
  struct sigaction action{};
  action.sa_handler = ignore;
  sigaction(SIGUSR2, &action, nullptr);
  struct {
    uintptr_t handler;
    unsigned long flags;
    uintptr_t restorer;
    uint64_t mask;
  } kernel{};
  syscall(SYS_rt_sigaction, SIGUSR2, nullptr, &kernel, sizeof kernel.mask);
  return kernel.restorer;
}

TEST(SignalFrames, TheTrampolineUnderTheCollectorsHandlerIsLeftOut) {
  TempDir dir;
  const int stream = lc::open_stream(dir.path().c_str(), "stacks");
  ASSERT_GE(stream, 0);
  ASSERT_TRUE(lc::stack_table_init(stream));
  lc::stack_capture_exclude_object_of(reinterpret_cast<const void*>(&trampoline));
  const uint64_t restorer = trampoline();
  ASSERT_NE(restorer, 0u);
  const uint64_t interrupted = reinterpret_cast<uint64_t>(&getpid) + 4;  // the program's, in libc
  const uint64_t caller = reinterpret_cast<uint64_t>(&getppid) + 4;
  const uint64_t collector = reinterpret_cast<uint64_t>(&trampoline) + 1;

  const uint64_t in_handler[] = {collector, collector, restorer, interrupted, caller};
  const uint64_t program[] = {interrupted, caller};
  EXPECT_EQ(lc::intern_unwound_stack(in_handler, 5, -1), lc::stack_table_intern(program, 2, 0))
      << "the interrupted function is the leaf, its PC no return address";

  const uint64_t programs_handler[] = {restorer, interrupted, caller};
  EXPECT_EQ(lc::intern_unwound_stack(programs_handler, 3, -1), lc::stack_table_intern(programs_handler, 3, 0))
      << "a trampoline under the program's own code stays";
}

}  // namespace
}  // namespace lumen::test
