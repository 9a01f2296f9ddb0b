// Attribution of metric values to program structure.
//
// Input: unique stacks of node ids (functions, or load objects), leaf first,
// each with its aggregated values. For each stack:
//   exclusive  goes to the leaf node;
//   inclusive  goes once to every *distinct* node on the stack (recursion
//              counts once);
//   attributed goes to caller->callee edges at each node's innermost
//              occurrence (nearest the leaf): the value is in the node's
//              inclusive metric "because of" that caller, and passes on to
//              that callee (or stays with the node itself when it is the
//              leaf), so that for every node
//                inclusive = sum over callers = self + sum over callees
//              and self = exclusive. As the Analyzer defines it for
//              recursion, the outer invocations of a node already on the
//              stack count zero: their edges are listed (f calls f, g
//              calls f) with nothing attributed to them, and a directly
//              recursive f is its own caller with what its inner calls cost.
//   <Total>    gets everything, and has the root nodes as callees.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace lumen::analysis {

using NodeId = uint32_t;
using Values = std::vector<int64_t>;

class MetricEngine {
 public:
  // `total_node` is the id that stands for <Total> (it never occurs in stacks).
  MetricEngine(size_t metric_count, NodeId total_node);

  void add_stack(std::span<const NodeId> frames_leaf_first, std::span<const int64_t> values);

  size_t metric_count() const { return metric_count_; }
  const Values& total() const { return total_; }

  struct NodeMetrics {
    Values exclusive;
    Values inclusive;
    Values self_attributed;
  };
  // Every node seen, <Total> included.
  const std::unordered_map<NodeId, NodeMetrics>& nodes() const { return nodes_; }
  const NodeMetrics* node(NodeId id) const;

  using EdgeMap = std::unordered_map<NodeId, Values>;
  // callers(f)[g]: part of f's inclusive metric due to calls from g.
  const EdgeMap& callers(NodeId callee) const;
  // callees(f)[g]: part of f's inclusive metric spent in calls to g.
  const EdgeMap& callees(NodeId caller) const;

 private:
  NodeMetrics& node_for(NodeId id);
  void add_to(Values& into, std::span<const int64_t> values) const;

  size_t metric_count_;
  NodeId total_node_;
  Values total_;
  std::unordered_map<NodeId, NodeMetrics> nodes_;
  std::unordered_map<NodeId, EdgeMap> callers_;
  std::unordered_map<NodeId, EdgeMap> callees_;
  std::vector<NodeId> seen_;  // scratch for add_stack
};

}  // namespace lumen::analysis
