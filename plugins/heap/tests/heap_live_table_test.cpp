// The collector's live-allocation table on its own: random inserts,
// replacements and removals from several threads, against a map of the
// truth per thread (each thread owns its own addresses, as the allocator
// hands each block to one caller), and growth far past the first size.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

#include "collector/live_table.h"

namespace lumen::heap {
namespace {

void churn(uint32_t thread, int operations, std::unordered_map<uint64_t, LiveEntry>& truth, bool& exact) {
  std::mt19937_64 random(thread);
  uint64_t ordinal = 0;
  for (int n = 0; n < operations; ++n) {
    // Addresses of this thread only, 16-byte aligned, crowded into few
    // stripes' runs so that probes collide and removals shift entries back.
    const uint64_t address = (uint64_t{thread} << 32) | ((random() % 20000) * 16 + 16);
    const bool mapping = random() % 8 == 0;
    const uint64_t key = live_key(reinterpret_cast<const void*>(address), mapping);
    if (random() % 3 == 0) {
      LiveEntry removed;
      const bool found = live_remove(key, removed);
      const auto it = truth.find(key);
      if (found != (it != truth.end()) || (found && removed.ordinal != it->second.ordinal)) exact = false;
      if (it != truth.end()) truth.erase(it);
    } else {
      const LiveEntry entry{key, ordinal++, random() % 1000, 5, thread, 0};
      LiveEntry replaced;
      const bool was_live = live_insert(entry, replaced);
      const auto it = truth.find(key);
      if (was_live != (it != truth.end()) || (was_live && replaced.ordinal != it->second.ordinal)) exact = false;
      truth[key] = entry;
    }
  }
}

TEST(HeapLiveTable, InsertsReplacementsAndRemovalsFromThreadsAreExact) {
  // The stripes' first tables mapped at once, as at the plugin's start:
  // growing out of them must leave the others' alone.
  ASSERT_TRUE(live_start());
  constexpr int kThreads = 4;
  std::vector<std::unordered_map<uint64_t, LiveEntry>> truth(kThreads);
  bool exact[kThreads] = {true, true, true, true};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] { churn(static_cast<uint32_t>(t + 1), 200000, truth[t], exact[t]); });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(exact[t]) << "thread " << t;
    // Everything the truth holds is there, with its own identity; removing it empties the table.
    for (const auto& [key, entry] : truth[t]) {
      LiveEntry removed;
      ASSERT_TRUE(live_remove(key, removed));
      EXPECT_EQ(removed.ordinal, entry.ordinal);
      EXPECT_EQ(removed.thread_id, entry.thread_id);
      EXPECT_EQ(removed.size, entry.size);
    }
    for (const auto& [key, entry] : truth[t]) {
      LiveEntry removed;
      EXPECT_FALSE(live_remove(key, removed));
    }
  }
}

TEST(HeapLiveTable, AForkedChildForgetsItsParentsEntries) {
  ASSERT_TRUE(live_start());
  LiveEntry replaced;
  live_insert({0x7000'0010, 1, 32, 1, 9, 0}, replaced);
  live_forget_after_fork();
  LiveEntry removed;
  EXPECT_FALSE(live_remove(0x7000'0010, removed));
  EXPECT_FALSE(live_insert({0x7000'0010, 2, 32, 1, 9, 0}, replaced));
  EXPECT_TRUE(live_remove(0x7000'0010, removed));
  EXPECT_EQ(removed.ordinal, 2u);
}

}  // namespace
}  // namespace lumen::heap
