#include "source_paths.h"

#include <sstream>

namespace lumen::analysis {

namespace fs = std::filesystem;

void SourcePaths::set_path(const std::string& list) {
  search_.clear();
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ':'))
    if (!item.empty()) search_.push_back(item);
}

void SourcePaths::add_path(const std::string& dir) { search_.push_back(dir); }

void SourcePaths::add_pathmap(const std::string& from, const std::string& to) { maps_.emplace_back(from, to); }

std::vector<fs::path> SourcePaths::candidates(const std::string& recorded,
                                              const std::vector<fs::path>& experiment_dirs) const {
  std::vector<fs::path> list;
  for (const auto& [from, to] : maps_)
    if (recorded.rfind(from, 0) == 0) list.push_back(fs::path(to + recorded.substr(from.size())));
  list.push_back(recorded);
  const fs::path name = fs::path(recorded).filename();
  for (const std::string& dir : search_) {
    if (dir == "$expts") {
      for (const fs::path& e : experiment_dirs) {
        if (fs::path(recorded).is_relative()) list.push_back(e / recorded);
        list.push_back(e / name);
      }
    } else {
      // A relative recorded path may keep its directories under a search dir.
      if (fs::path(recorded).is_relative()) list.push_back(fs::path(dir) / recorded);
      list.push_back(fs::path(dir) / name);
    }
  }
  return list;
}

std::optional<fs::path> SourcePaths::resolve(const std::string& recorded, const std::vector<fs::path>& experiment_dirs) const {
  for (const fs::path& candidate : candidates(recorded, experiment_dirs)) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

}  // namespace lumen::analysis
