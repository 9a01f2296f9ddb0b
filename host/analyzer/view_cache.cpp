#include "view_cache.h"

namespace lumen::analyzer {

std::optional<std::string> ViewCache::find(const std::string& key) {
  const auto found = by_key_.find(key);
  if (found == by_key_.end()) return std::nullopt;
  entries_.splice(entries_.begin(), entries_, found->second);
  return found->second->second;
}

void ViewCache::keep(const std::string& key, const std::string& answer) {
  const size_t cost = key.size() + answer.size();
  if (cost > capacity_ / 4 || by_key_.count(key) != 0) return;
  while (!entries_.empty() && bytes_ + cost > capacity_) {
    const Entry& oldest = entries_.back();
    bytes_ -= oldest.first.size() + oldest.second.size();
    by_key_.erase(oldest.first);
    entries_.pop_back();
  }
  entries_.emplace_front(key, answer);
  by_key_[key] = entries_.begin();
  bytes_ += cost;
}

}  // namespace lumen::analyzer
