#include "metric_engine.h"
#include "metric_sum.h"

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
  add_values(into.data(), values.data(), metric_count_);
}

void MetricEngine::add_stack(std::span<const NodeId> frames, std::span<const int64_t> values) {
  add_to(total_, values);
  NodeMetrics& total = node_for(total_node_);
  add_to(total.exclusive, values);
  add_to(total.inclusive, values);
  if (frames.empty()) return;
  NodeMetrics& leaf = node_for(frames.front());
  add_to(leaf.exclusive, values);
  add_to(leaf.self_attributed, values);
  add_to(callees_[total_node_][frames.back()], values);
  // Walk from the leaf so that the first sight of a node is its innermost
  // occurrence, the one that carries its attributed values; an outer one
  // only lists its edges.
  seen_.clear();
  for (size_t i = 0; i < frames.size(); ++i) {
    const NodeId node = frames[i];
    const NodeId caller = i + 1 < frames.size() ? frames[i + 1] : total_node_;
    Values& from_caller = callers_[node][caller];
    Values* to_callee = i > 0 ? &callees_[node][frames[i - 1]] : nullptr;
    if (std::find(seen_.begin(), seen_.end(), node) != seen_.end()) {
      if (from_caller.empty()) from_caller.assign(metric_count_, 0);
      if (to_callee != nullptr && to_callee->empty()) to_callee->assign(metric_count_, 0);
      continue;
    }
    seen_.push_back(node);
    add_to(node_for(node).inclusive, values);
    add_to(from_caller, values);
    if (to_callee != nullptr) add_to(*to_callee, values);
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
