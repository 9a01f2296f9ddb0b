// The reusable capture (capture_stack_reusing): the id it returns is the id
// a fresh capture_stack gives from the same place, whether it was reused or
// unwound again; it is reused only while the call path is the same.
#include <alloca.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "stacks/object_snapshot.h"
#include "stacks/reusable_capture.h"
#include "stacks/stack_capture.h"
#include "stacks/stack_table.h"
#include "recording/stream_writer.h"
#include "test_support.h"

namespace lumen::test {
namespace {

namespace lc = lumen::collector;

// Runs `body` on a thread of its own (fresh per-thread blocks and caches).
void on_writer_thread(const std::function<void()>& body) {
  std::thread thread([&] {
    body();
    lc::finish_thread_streams();
  });
  thread.join();
}

struct Captured {
  uint64_t reused;  // capture_stack_reusing's id
  uint64_t fresh;   // capture_stack's, from the same function
};

// Both captures start at the caller of the function calling them: here,
// whoever called capture_both.
__attribute__((noinline)) Captured capture_both(lumen_capture_cache* cache) {
  Captured captured;
  captured.reused = lc::capture_stack_reusing(cache, 0);
  captured.fresh = lc::capture_stack(nullptr, 0);
  asm volatile("" ::: "memory");  // no tail call: this frame stays
  return captured;
}

__attribute__((noinline)) Captured from_site_a(lumen_capture_cache* cache) {
  Captured c = capture_both(cache);
  asm volatile("" ::: "memory");
  return c;
}

__attribute__((noinline)) Captured from_site_b(lumen_capture_cache* cache) {
  Captured c = capture_both(cache);
  asm volatile("" ::: "memory");
  return c;
}

// One function calling the same one from two places, at the same depth.
__attribute__((noinline)) Captured from_either_call(lumen_capture_cache* cache, bool second) {
  Captured c;
  // Different instructions after each call keep the compiler from merging
  // the two calls into one.
  if (second) {
    c = from_site_a(cache);
    asm volatile("nop" ::: "memory");
  } else {
    c = from_site_a(cache);
    asm volatile("nop; nop" ::: "memory");
  }
  return c;
}

__attribute__((noinline)) Captured at_depth(lumen_capture_cache* cache, int depth) {
  Captured c = depth == 0 ? from_site_a(cache) : at_depth(cache, depth - 1);
  asm volatile("" ::: "memory");
  return c;
}

// A frame of variable size between the capture and its callers.
__attribute__((noinline)) Captured below_alloca(lumen_capture_cache* cache, size_t bytes) {
  char* space = static_cast<char*>(alloca(bytes));
  std::memset(space, 0, bytes);
  asm volatile("" : : "r"(space) : "memory");
  Captured c = from_site_a(cache);
  asm volatile("" ::: "memory");
  return c;
}

__attribute__((noinline)) Captured alloca_from_a(lumen_capture_cache* cache, size_t bytes) {
  Captured c = below_alloca(cache, bytes);
  asm volatile("" ::: "memory");
  return c;
}

__attribute__((noinline)) Captured alloca_from_b(lumen_capture_cache* cache, size_t bytes) {
  Captured c = below_alloca(cache, bytes);
  asm volatile("" ::: "memory");
  return c;
}

// A loop bound the compiler cannot see: an unrolled loop would make each
// capture a call site of its own.
__attribute__((noinline)) int unseen(int n) {
  asm volatile("" : "+r"(n));
  return n;
}

class ReusableCapture : public ::testing::Test {
 protected:
  void SetUp() override {
    lc::object_snapshot_refresh();
    lc::stack_capture_use_global_cache();
    lc::reusable_capture_init();
    const int stream = lc::open_stream(dir_.path().c_str(), "stacks");
    ASSERT_GE(stream, 0);
    ASSERT_TRUE(lc::stack_table_init(stream));
    cache_ = std::make_unique<lumen_capture_cache>();
    std::memset(cache_.get(), 0, sizeof *cache_);
  }

  lumen_capture_cache* cache() { return cache_.get(); }
  lc::ReuseCounts counts() const { return lc::reuse_counts(cache_.get()); }

 private:
  TempDir dir_;
  std::unique_ptr<lumen_capture_cache> cache_;
};

TEST_F(ReusableCapture, ReusedIdIsAFreshCapturesIdAndIsReused) {
  on_writer_thread([&] {
    uint64_t first = LUMEN_NO_STACK;
    for (int i = 0; i < unseen(20); ++i) {
      const Captured c = from_site_a(cache());
      ASSERT_NE(c.fresh, LUMEN_NO_STACK);
      EXPECT_EQ(c.reused, c.fresh) << "call " << i;
      if (i == 0) first = c.reused;
      EXPECT_EQ(c.reused, first);
    }
    EXPECT_EQ(counts().unwound, 1u);
    EXPECT_EQ(counts().reused, 19u);
  });
}

TEST_F(ReusableCapture, AnotherCallerAtTheSameDepthIsUnwound) {
  on_writer_thread([&] {
    Captured seen[3];
    for (int i = 0; i < unseen(3); ++i) seen[i] = i == 1 ? from_site_b(cache()) : from_site_a(cache());
    const Captured a = seen[0], b = seen[1], a_again = seen[2];
    EXPECT_EQ(a.reused, a.fresh);
    EXPECT_EQ(b.reused, b.fresh);
    EXPECT_EQ(a_again.reused, a_again.fresh);
    EXPECT_NE(a.reused, b.reused);
    EXPECT_EQ(a_again.reused, a.reused);
    EXPECT_EQ(counts().unwound, 3u);
  });
}

TEST_F(ReusableCapture, OneFunctionCalledFromTwoPlacesAtTheSameDepth) {
  on_writer_thread([&] {
    Captured seen[2][3];
    for (int round = 0; round < 3; ++round)
      for (int second = 0; second < 2; ++second) seen[second][round] = from_either_call(cache(), second != 0);
    for (int round = 0; round < 3; ++round)
      for (int second = 0; second < 2; ++second) {
        EXPECT_EQ(seen[second][round].reused, seen[second][round].fresh) << round << " " << second;
        EXPECT_EQ(seen[second][round].reused, seen[second][0].reused);
      }
    EXPECT_NE(seen[0][0].reused, seen[1][0].reused);
  });
}

TEST_F(ReusableCapture, AVariableFrameBetweenTheCaptureAndItsCallers) {
  on_writer_thread([&] {
    uint64_t via_a = LUMEN_NO_STACK, via_b = LUMEN_NO_STACK;
    for (size_t bytes : {16, 16, 48, 16, 4000, 48, 48, 16}) {
      const Captured a = alloca_from_a(cache(), bytes);
      const Captured b = alloca_from_b(cache(), bytes);
      EXPECT_EQ(a.reused, a.fresh) << bytes;
      EXPECT_EQ(b.reused, b.fresh) << bytes;
      if (via_a == LUMEN_NO_STACK) via_a = a.reused, via_b = b.reused;
      EXPECT_EQ(a.reused, via_a) << bytes;
      EXPECT_EQ(b.reused, via_b) << bytes;
    }
    EXPECT_NE(via_a, via_b);
  });
}

TEST_F(ReusableCapture, ADeeperOrShallowerRecursionIsUnwound) {
  on_writer_thread([&] {
    uint64_t at[8] = {};
    for (int depth : {3, 3, 5, 3, 5, 5, 7, 3}) {
      const uint64_t before = counts().unwound;
      const Captured c = at_depth(cache(), depth);
      EXPECT_EQ(c.reused, c.fresh) << depth;
      if (at[depth] == 0) {
        at[depth] = c.reused;
      } else {
        EXPECT_EQ(c.reused, at[depth]) << depth;
      }
      (void)before;
    }
    EXPECT_NE(at[3], at[5]);
    EXPECT_NE(at[5], at[7]);
    // 3 3 5 3 5 5 7 3: unwound where the depth changed, reused where not.
    EXPECT_EQ(counts().unwound, 6u);
    EXPECT_EQ(counts().reused, 2u);
  });
}

// Called before each capture of a loop, so that the loop's body has no
// branch the compiler could copy the capture's call into.
__attribute__((noinline)) void load_library_at(int i, int at, void** library) {
  if (i != at) return;
  *library = dlopen(LUMEN_TEST_NOT_A_PLUGIN, RTLD_NOW);
  lc::object_snapshot_refresh();  // what the runtime's dlopen does
}

__attribute__((noinline)) void empty_stack_table_at(int i, int at) {
  if (i == at) lc::stack_table_reset();  // as in a forked child: the ids from before name nothing
}

TEST_F(ReusableCapture, ALoadObjectMapChangeIsUnwound) {
  on_writer_thread([&] {
    Captured seen[3];
    uint64_t reused_so_far[3];
    void* library = nullptr;
    for (int i = 0; i < unseen(3); ++i) {
      load_library_at(i, 2, &library);
      seen[i] = from_site_a(cache());
      reused_so_far[i] = counts().reused;
    }
    ASSERT_NE(library, nullptr) << dlerror();
    EXPECT_EQ(reused_so_far[1], 1u);
    EXPECT_EQ(reused_so_far[2], 1u);
    EXPECT_EQ(counts().unwound, 2u);
    EXPECT_EQ(seen[2].reused, seen[2].fresh);
    EXPECT_EQ(seen[2].reused, seen[0].reused);
    EXPECT_EQ(seen[1].reused, seen[0].reused);
    dlclose(library);
    lc::object_snapshot_refresh();
  });
}

TEST_F(ReusableCapture, AnEmptiedStackTableIsUnwound) {
  on_writer_thread([&] {
    Captured after{};
    for (int i = 0; i < unseen(3); ++i) {
      empty_stack_table_at(i, 2);
      after = from_site_a(cache());
    }
    EXPECT_EQ(counts().unwound, 2u);
    EXPECT_EQ(counts().reused, 1u);
    EXPECT_EQ(after.reused, after.fresh);
  });
}

}  // namespace
}  // namespace lumen::test
