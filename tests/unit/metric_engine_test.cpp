// MetricEngine: exclusive, inclusive and attributed values on hand-made
// stacks (leaf first), with exact integers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "metric_engine.h"

namespace lumen::test {
namespace {

using analysis::MetricEngine;
using analysis::NodeId;
using analysis::Values;

constexpr NodeId kTotal = 0;
constexpr NodeId A = 1, B = 2, C = 3, D = 4;

void add(MetricEngine& engine, std::vector<NodeId> leaf_first, std::vector<int64_t> values) {
  engine.add_stack(leaf_first, values);
}

// An edge map as an ordered map of the first metric, for readable comparison.
std::map<NodeId, int64_t> edges(const MetricEngine::EdgeMap& map, size_t metric = 0) {
  std::map<NodeId, int64_t> out;
  for (const auto& [node, values] : map) out[node] = values.at(metric);
  return out;
}

int64_t sum(const MetricEngine::EdgeMap& map, size_t metric) {
  int64_t total = 0;
  for (const auto& [node, values] : map) total += values.at(metric);
  return total;
}

// The documented invariants, for every node but <Total>:
//   inclusive == sum over callers == self_attributed + sum over callees,
//   self_attributed == exclusive;
// and for <Total> (when every stack had frames): inclusive == sum over callees.
void expect_attribution_invariants(const MetricEngine& engine) {
  for (const auto& [id, metrics] : engine.nodes()) {
    for (size_t m = 0; m < engine.metric_count(); ++m) {
      SCOPED_TRACE("node " + std::to_string(id) + " metric " + std::to_string(m));
      if (id == kTotal) {
        EXPECT_EQ(metrics.inclusive[m], sum(engine.callees(id), m));
        EXPECT_EQ(metrics.inclusive[m], engine.total()[m]);
        EXPECT_TRUE(engine.callers(id).empty());
        continue;
      }
      EXPECT_EQ(metrics.inclusive[m], sum(engine.callers(id), m));
      EXPECT_EQ(metrics.inclusive[m], metrics.self_attributed[m] + sum(engine.callees(id), m));
      EXPECT_EQ(metrics.self_attributed[m], metrics.exclusive[m]);
    }
  }
}

TEST(MetricEngine, StartsWithOnlyTotal) {
  const MetricEngine engine(2, kTotal);
  EXPECT_EQ(engine.metric_count(), 2u);
  EXPECT_EQ(engine.total(), (Values{0, 0}));
  ASSERT_EQ(engine.nodes().size(), 1u);
  ASSERT_NE(engine.node(kTotal), nullptr);
  EXPECT_EQ(engine.node(kTotal)->inclusive, (Values{0, 0}));
  EXPECT_EQ(engine.node(A), nullptr);
  EXPECT_TRUE(engine.callers(A).empty());
  EXPECT_TRUE(engine.callees(A).empty());
}

// Call tree (root first):  A -> B -> C (10), A -> B (5), A -> D (3), A (2), A -> D -> C (7)
class MetricEngineTree : public ::testing::Test {
 protected:
  void SetUp() override {
    add(engine_, {C, B, A}, {10});
    add(engine_, {B, A}, {5});
    add(engine_, {D, A}, {3});
    add(engine_, {A}, {2});
    add(engine_, {C, D, A}, {7});
  }
  MetricEngine engine_{1, kTotal};
};

TEST_F(MetricEngineTree, ExclusiveGoesToTheLeaf) {
  EXPECT_EQ(engine_.node(A)->exclusive[0], 2);
  EXPECT_EQ(engine_.node(B)->exclusive[0], 5);
  EXPECT_EQ(engine_.node(C)->exclusive[0], 17);
  EXPECT_EQ(engine_.node(D)->exclusive[0], 3);
}

TEST_F(MetricEngineTree, InclusiveGoesToEveryNodeOnTheStack) {
  EXPECT_EQ(engine_.node(A)->inclusive[0], 27);
  EXPECT_EQ(engine_.node(B)->inclusive[0], 15);
  EXPECT_EQ(engine_.node(C)->inclusive[0], 17);
  EXPECT_EQ(engine_.node(D)->inclusive[0], 10);
}

TEST_F(MetricEngineTree, TotalGetsEverythingAndHasTheRootsAsCallees) {
  EXPECT_EQ(engine_.total(), Values{27});
  EXPECT_EQ(engine_.node(kTotal)->exclusive, Values{27});
  EXPECT_EQ(engine_.node(kTotal)->inclusive, Values{27});
  EXPECT_EQ(engine_.node(kTotal)->self_attributed, Values{0});
  EXPECT_EQ(edges(engine_.callees(kTotal)), (std::map<NodeId, int64_t>{{A, 27}}));
  EXPECT_EQ(engine_.nodes().size(), 5u);  // <Total>, A, B, C, D
}

TEST_F(MetricEngineTree, AttributedEdges) {
  EXPECT_EQ(edges(engine_.callers(A)), (std::map<NodeId, int64_t>{{kTotal, 27}}));
  EXPECT_EQ(edges(engine_.callers(B)), (std::map<NodeId, int64_t>{{A, 15}}));
  EXPECT_EQ(edges(engine_.callers(C)), (std::map<NodeId, int64_t>{{B, 10}, {D, 7}}));
  EXPECT_EQ(edges(engine_.callers(D)), (std::map<NodeId, int64_t>{{A, 10}}));

  EXPECT_EQ(edges(engine_.callees(A)), (std::map<NodeId, int64_t>{{B, 15}, {D, 10}}));
  EXPECT_EQ(edges(engine_.callees(B)), (std::map<NodeId, int64_t>{{C, 10}}));
  EXPECT_TRUE(engine_.callees(C).empty());
  EXPECT_EQ(edges(engine_.callees(D)), (std::map<NodeId, int64_t>{{C, 7}}));

  EXPECT_EQ(engine_.node(A)->self_attributed[0], 2);
  EXPECT_EQ(engine_.node(B)->self_attributed[0], 5);
  EXPECT_EQ(engine_.node(C)->self_attributed[0], 17);
  EXPECT_EQ(engine_.node(D)->self_attributed[0], 3);
  expect_attribution_invariants(engine_);
}

TEST(MetricEngine, RecursionCountsOnceInInclusive) {
  MetricEngine engine(1, kTotal);
  add(engine, {B, A, B, A}, {4});  // A -> B -> A -> B (leaf)
  EXPECT_EQ(engine.node(A)->inclusive[0], 4);
  EXPECT_EQ(engine.node(B)->inclusive[0], 4);
  EXPECT_EQ(engine.node(A)->exclusive[0], 0);
  EXPECT_EQ(engine.node(B)->exclusive[0], 4);
  EXPECT_EQ(engine.total(), Values{4});
  // Indirect recursion: attribution at the innermost occurrences, B -> A -> B
  // (leaf); the outer calls <Total> -> A and A -> B are listed with zero.
  EXPECT_EQ(edges(engine.callers(A)), (std::map<NodeId, int64_t>{{kTotal, 0}, {B, 4}}));
  EXPECT_EQ(edges(engine.callers(B)), (std::map<NodeId, int64_t>{{A, 4}}));
  EXPECT_EQ(edges(engine.callees(A)), (std::map<NodeId, int64_t>{{B, 4}}));
  EXPECT_EQ(edges(engine.callees(B)), (std::map<NodeId, int64_t>{{A, 0}}));
  EXPECT_EQ(engine.node(A)->self_attributed[0], 0);
  EXPECT_EQ(engine.node(B)->self_attributed[0], 4);
  // <Total> calls the outermost A with everything, as an initiating caller.
  EXPECT_EQ(edges(engine.callees(kTotal)), (std::map<NodeId, int64_t>{{A, 4}}));
  expect_attribution_invariants(engine);
}

// fib as a profile of it looks: main -> fib -> ... -> fib, its time at every
// depth. fib is its own caller with what the calls below the first cost, its
// own callee with nothing (that time is its own, counted once), and its
// attributed value as the centre is its exclusive.
TEST(MetricEngine, DirectRecursionAsTheAnalyzerDefinesIt) {
  constexpr NodeId kMain = A, kFib = B;
  MetricEngine engine(1, kTotal);
  add(engine, {kFib, kMain}, {5});              // fib(leaf) called by main
  add(engine, {kFib, kFib, kMain}, {7});        // one level down
  add(engine, {kFib, kFib, kFib, kMain}, {11});  // two levels down
  add(engine, {kMain}, {2});
  EXPECT_EQ(engine.node(kFib)->exclusive[0], 23);
  EXPECT_EQ(engine.node(kFib)->inclusive[0], 23);
  EXPECT_EQ(engine.node(kFib)->self_attributed[0], 23);
  EXPECT_EQ(edges(engine.callers(kFib)), (std::map<NodeId, int64_t>{{kMain, 5}, {kFib, 18}}));
  EXPECT_EQ(edges(engine.callees(kFib)), (std::map<NodeId, int64_t>{{kFib, 0}}));
  EXPECT_EQ(edges(engine.callees(kMain)), (std::map<NodeId, int64_t>{{kFib, 23}}));
  EXPECT_EQ(engine.node(kMain)->self_attributed[0], 2);
  expect_attribution_invariants(engine);
}

// f -> g -> f -> h: f's innermost call is from g and calls h.
TEST(MetricEngine, IndirectRecursionAttributesAtTheInnermostCall) {
  constexpr NodeId kMain = A, kF = B, kG = C, kH = D;
  MetricEngine engine(1, kTotal);
  add(engine, {kH, kF, kG, kF, kMain}, {3});
  add(engine, {kG, kF, kMain}, {4});
  EXPECT_EQ(engine.node(kF)->inclusive[0], 7);
  EXPECT_EQ(engine.node(kG)->inclusive[0], 7);
  EXPECT_EQ(edges(engine.callers(kF)), (std::map<NodeId, int64_t>{{kMain, 4}, {kG, 3}}));
  EXPECT_EQ(edges(engine.callees(kF)), (std::map<NodeId, int64_t>{{kG, 4}, {kH, 3}}));
  EXPECT_EQ(edges(engine.callers(kG)), (std::map<NodeId, int64_t>{{kF, 7}}));
  EXPECT_EQ(edges(engine.callees(kG)), (std::map<NodeId, int64_t>{{kF, 3}}));
  EXPECT_EQ(engine.node(kG)->self_attributed[0], 4);
  EXPECT_EQ(engine.node(kF)->self_attributed[0], 0);
  expect_attribution_invariants(engine);
}

TEST(MetricEngine, RecursionMixedWithPlainStacks) {
  MetricEngine engine(1, kTotal);
  add(engine, {B, A, B, A}, {4});
  add(engine, {A}, {1});
  add(engine, {B, A}, {2});
  add(engine, {A, A, A}, {8});     // direct recursion, A is the leaf
  add(engine, {C, A, B, A}, {16});  // A -> B -> A -> C
  EXPECT_EQ(engine.node(A)->inclusive[0], 31);
  EXPECT_EQ(engine.node(B)->inclusive[0], 22);
  EXPECT_EQ(engine.node(C)->inclusive[0], 16);
  EXPECT_EQ(engine.node(A)->exclusive[0], 9);
  EXPECT_EQ(engine.node(B)->exclusive[0], 6);
  EXPECT_EQ(engine.node(C)->exclusive[0], 16);
  EXPECT_EQ(engine.total(), Values{31});
  expect_attribution_invariants(engine);
}

TEST(MetricEngine, TwoMetricsAtOnce) {
  MetricEngine engine(2, kTotal);
  add(engine, {B, A}, {10, 1});
  add(engine, {C, A}, {5, 100});
  add(engine, {A}, {-3, 7});  // values are signed; nothing assumes positive
  EXPECT_EQ(engine.total(), (Values{12, 108}));
  EXPECT_EQ(engine.node(A)->inclusive, (Values{12, 108}));
  EXPECT_EQ(engine.node(A)->exclusive, (Values{-3, 7}));
  EXPECT_EQ(engine.node(A)->self_attributed, (Values{-3, 7}));
  EXPECT_EQ(engine.node(B)->exclusive, (Values{10, 1}));
  EXPECT_EQ(engine.node(C)->inclusive, (Values{5, 100}));
  EXPECT_EQ(engine.callees(A).at(B), (Values{10, 1}));
  EXPECT_EQ(engine.callees(A).at(C), (Values{5, 100}));
  EXPECT_EQ(engine.callers(C).at(A), (Values{5, 100}));
  expect_attribution_invariants(engine);
}

TEST(MetricEngine, EmptyStackCountsOnlyInTotal) {
  MetricEngine engine(1, kTotal);
  add(engine, {}, {9});
  EXPECT_EQ(engine.total(), Values{9});
  ASSERT_EQ(engine.nodes().size(), 1u);
  EXPECT_EQ(engine.node(kTotal)->exclusive, Values{9});
  EXPECT_EQ(engine.node(kTotal)->inclusive, Values{9});
  EXPECT_TRUE(engine.callees(kTotal).empty());
  add(engine, {A}, {1});
  EXPECT_EQ(engine.total(), Values{10});
  EXPECT_EQ(engine.node(A)->inclusive, Values{1});
  EXPECT_EQ(edges(engine.callees(kTotal)), (std::map<NodeId, int64_t>{{A, 1}}));
}

TEST(MetricEngine, SameStackTwiceAccumulates) {
  MetricEngine engine(1, kTotal);
  add(engine, {B, A}, {3});
  add(engine, {B, A}, {4});
  EXPECT_EQ(engine.node(B)->exclusive[0], 7);
  EXPECT_EQ(engine.callers(B).at(A)[0], 7);
}

// Pseudo-random stacks with recursion (a fixed, portable generator), checked
// against a direct computation of each definition.
TEST(MetricEngine, InvariantsOnGeneratedStacks) {
  uint64_t state = 0x2545f4914f6cdd1dull;
  auto next = [&state](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  MetricEngine engine(2, kTotal);
  std::map<NodeId, int64_t> exclusive, inclusive;
  // Attributed edges by the definition: each node's innermost occurrence;
  // every call seen at all is listed.
  std::map<std::pair<NodeId, NodeId>, int64_t> from_caller, to_callee;  // (node, other)
  int64_t total = 0;
  for (int s = 0; s < 300; ++s) {
    std::vector<NodeId> stack(1 + next(8));
    for (NodeId& node : stack) node = static_cast<NodeId>(1 + next(5));
    const int64_t value = static_cast<int64_t>(1 + next(1000));
    add(engine, stack, {value, 2 * value});
    total += value;
    exclusive[stack.front()] += value;
    for (const NodeId node : std::set<NodeId>(stack.begin(), stack.end())) inclusive[node] += value;
    for (size_t i = 0; i < stack.size(); ++i) {
      const bool innermost = std::find(stack.begin(), stack.begin() + i, stack[i]) == stack.begin() + i;
      const NodeId caller = i + 1 < stack.size() ? stack[i + 1] : kTotal;
      from_caller[{stack[i], caller}] += innermost ? value : 0;
      if (i > 0) to_callee[{stack[i], stack[i - 1]}] += innermost ? value : 0;
    }
  }
  for (const auto& [edge, value] : from_caller) EXPECT_EQ(engine.callers(edge.first).at(edge.second)[0], value);
  for (const auto& [edge, value] : to_callee) EXPECT_EQ(engine.callees(edge.first).at(edge.second)[0], value);
  size_t listed = 0;
  for (NodeId node = 1; node <= 5; ++node) listed += engine.callers(node).size() + engine.callees(node).size();
  EXPECT_EQ(listed, from_caller.size() + to_callee.size());
  EXPECT_EQ(engine.total(), (Values{total, 2 * total}));
  for (const auto& [node, value] : inclusive) {
    SCOPED_TRACE("node " + std::to_string(node));
    EXPECT_EQ(engine.node(node)->inclusive, (Values{value, 2 * value}));
    EXPECT_EQ(engine.node(node)->exclusive, (Values{exclusive[node], 2 * exclusive[node]}));
  }
  expect_attribution_invariants(engine);
}

}  // namespace
}  // namespace lumen::test
