#include "metric_engine.h"

#include <algorithm>

namespace lumen::analysis {

MetricEngine::MetricEngine(size_t metric_count, NodeId total_node)
    : metric_count_(metric_count), total_node_(total_node), total_(metric_count, 0) {
  node_for(total_node_);
}

MetricEngine::NodeMetrics& MetricEngine::node_for(NodeId id) {
  auto [it, inserted] = nodes_.try_emplace(id);
  if (inserted) {
    it->second.exclusive.assign(metric_count_, 0);
    it->second.inclusive.assign(metric_count_, 0);
    it->second.self_attributed.assign(metric_count_, 0);
  }
  return it->second;
}

void MetricEngine::add_to(Values& into, std::span<const int64_t> values) const {
  if (into.empty()) into.assign(metric_count_, 0);
  for (size_t m = 0; m < metric_count_; ++m) into[m] += values[m];
}

void MetricEngine::add_stack(std::span<const NodeId> frames, std::span<const int64_t> values) {
  add_to(total_, values);
  NodeMetrics& total = node_for(total_node_);
  add_to(total.exclusive, values);
  add_to(total.inclusive, values);
  if (frames.empty()) return;
  add_to(node_for(frames.front()).exclusive, values);
  add_to(callees_[total_node_][frames.back()], values);
  // Walk from the root so that the first sight of a node is its outermost
  // occurrence.
  seen_.clear();
  for (size_t i = frames.size(); i-- > 0;) {
    const NodeId node = frames[i];
    if (std::find(seen_.begin(), seen_.end(), node) != seen_.end()) continue;
    seen_.push_back(node);
    NodeMetrics& metrics = node_for(node);
    add_to(metrics.inclusive, values);
    if (i + 1 < frames.size()) add_to(callers_[node][frames[i + 1]], values);
    else add_to(callers_[node][total_node_], values);
    if (i > 0) add_to(callees_[node][frames[i - 1]], values);
    else add_to(metrics.self_attributed, values);
  }
}

const MetricEngine::NodeMetrics* MetricEngine::node(NodeId id) const {
  const auto it = nodes_.find(id);
  return it == nodes_.end() ? nullptr : &it->second;
}

const MetricEngine::EdgeMap& MetricEngine::callers(NodeId callee) const {
  static const EdgeMap kNone;
  const auto it = callers_.find(callee);
  return it == callers_.end() ? kNone : it->second;
}

const MetricEngine::EdgeMap& MetricEngine::callees(NodeId caller) const {
  static const EdgeMap kNone;
  const auto it = callees_.find(caller);
  return it == callees_.end() ? kNone : it->second;
}

}  // namespace lumen::analysis
