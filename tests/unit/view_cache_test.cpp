// The analyzer's kept views: an answer is found by its key, the least
// recently used go first past the bound on bytes, and an answer larger
// than a quarter of the bound is not kept.
#include <gtest/gtest.h>

#include "view_cache.h"

namespace lumen::analyzer {
namespace {

TEST(ViewCache, KeepsAnswersByKey) {
  ViewCache cache(1000);
  cache.keep("functions", "one");
  cache.keep("calltree", "two");
  EXPECT_EQ(cache.find("functions"), "one");
  EXPECT_EQ(cache.find("calltree"), "two");
  EXPECT_EQ(cache.find("lines"), std::nullopt);
  EXPECT_EQ(cache.bytes(), std::string("functionsonecalltreetwo").size());
}

TEST(ViewCache, TheLeastRecentlyUsedGoFirstPastTheBound) {
  ViewCache cache(400);
  const std::string answer(90, 'x');  // 91 bytes with its key
  for (const char* key : {"a", "b", "c", "d"}) cache.keep(key, answer);
  ASSERT_TRUE(cache.find("a"));  // a is now the most recently used
  cache.keep("e", answer);       // 5 x 91 > 400: b, the least recently used, goes
  EXPECT_TRUE(cache.find("a"));
  EXPECT_FALSE(cache.find("b"));
  EXPECT_TRUE(cache.find("c"));
  EXPECT_TRUE(cache.find("e"));
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_LE(cache.bytes(), 400u);
}

TEST(ViewCache, AnAnswerOverAQuarterOfTheBoundIsNotKept) {
  ViewCache cache(400);
  cache.keep("big", std::string(100, 'x'));  // 103 bytes > 100
  EXPECT_FALSE(cache.find("big"));
  EXPECT_EQ(cache.bytes(), 0u);
}

}  // namespace
}  // namespace lumen::analyzer
