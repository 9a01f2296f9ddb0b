// Views the page asked for before, kept as answered: the experiments do not
// change while the analyzer serves them and a view is a function of its
// command and the page's settings, so the same question gets the same
// answer without reading the records again (a plugin's view reads its data
// file each time it runs; the heap's sweep of 24 M events takes seconds).
// Least recently used answers go first past a bound on their bytes.
#pragma once

#include <cstddef>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace lumen::analyzer {

class ViewCache {
 public:
  explicit ViewCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  // The answer kept for `key`, now the most recently used.
  std::optional<std::string> find(const std::string& key);
  // Keeps `answer` for `key` unless it is larger than a quarter of the
  // bound, dropping the least recently used answers to stay within it.
  void keep(const std::string& key, const std::string& answer);

  size_t bytes() const { return bytes_; }
  size_t size() const { return entries_.size(); }

 private:
  using Entry = std::pair<std::string, std::string>;  // key, answer
  size_t capacity_;
  size_t bytes_ = 0;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> by_key_;
};

}  // namespace lumen::analyzer
