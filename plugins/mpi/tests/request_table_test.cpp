// The request table against std::unordered_map under a long random run of
// tracks, completions (persistent requests stay), finds and forgets, with
// handles crowded into few home slots so that probing and the moves of
// deletion are exercised: every answer equal.
#include <gtest/gtest.h>

#include <random>
#include <unordered_map>

#include "../collector/request_table.h"

namespace lumen::mpi {
namespace {

TEST(RequestTable, AnswersAsAMapDoes) {
  std::unordered_map<uint64_t, TrackedRequest> expected;
  std::mt19937_64 random(12345);
  // Handles as Open MPI's (pointers, 8-aligned) and MPICH's (ints with kind bits).
  auto handle = [&] { return (random() % 3000 + 1) * (random() % 2 ? 8 : 0x10000); };
  for (int step = 0; step < 200000; ++step) {
    const uint64_t h = handle();
    switch (random() % 5) {
      case 0:
      case 1: {
        TrackedRequest r;
        r.receive = random() % 2;
        r.persistent = random() % 4 == 0;
        r.tag = static_cast<int32_t>(step);
        track_request(h, r);
        expected[h] = r;
        break;
      }
      case 2: {
        uint64_t handles[3] = {h, handle(), h};
        std::optional<TrackedRequest> got[3];
        complete_requests(handles, 3, got);
        for (int i = 0; i < 3; ++i) {
          const auto it = expected.find(handles[i]);
          ASSERT_EQ(got[i].has_value(), it != expected.end()) << "step " << step;
          if (!got[i]) continue;
          EXPECT_EQ(got[i]->tag, it->second.tag) << "step " << step;
          if (!it->second.persistent) expected.erase(it);
        }
        break;
      }
      case 3: {
        const auto got = find_request(h);
        const auto it = expected.find(h);
        ASSERT_EQ(got.has_value(), it != expected.end()) << "step " << step;
        if (got) EXPECT_EQ(got->tag, it->second.tag) << "step " << step;
        break;
      }
      default:
        forget_request(h);
        expected.erase(h);
    }
  }
  for (const auto& [h, r] : expected) {
    const auto got = complete_request(h);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->tag, r.tag);
  }
}

}  // namespace
}  // namespace lumen::mpi
