#include "source_paths.h"

#include <algorithm>
#include <sstream>

namespace lumen::analysis {

namespace fs = std::filesystem;

namespace {

// `dir` with symlinks resolved as far as it exists; as written when not even that.
fs::path real_dir(const fs::path& dir) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  return ec || real.empty() ? dir.lexically_normal() : real;
}

}  // namespace

void SourcePaths::set_path(const std::string& list) {
  search_.clear();
  given_.clear();
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ':'))
    if (!item.empty()) {
      search_.push_back(item);
      if (item != "$expts") given_.push_back(item);
    }
}

void SourcePaths::add_path(const std::string& dir) {
  search_.push_back(dir);
  if (dir != "$expts") given_.push_back(dir);
}

void SourcePaths::add_pathmap(const std::string& from, const std::string& to) { maps_.emplace_back(from, to); }

void SourcePaths::only_under(const std::vector<fs::path>& roots) {
  std::vector<fs::path> real;
  for (const fs::path& root : roots) real.push_back(real_dir(root));
  only_under_ = std::move(real);
}

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
    if (!fs::is_regular_file(candidate, ec)) continue;
    if (!only_under_) return candidate;
    const fs::path real = fs::canonical(candidate, ec);
    // The real path is what is read: a symlink changed after this check
    // cannot lead elsewhere.
    if (!ec && is_under(real, *only_under_)) return real;
  }
  return std::nullopt;
}

std::optional<FoundSource> SourcePaths::locate(const std::string& recorded, const std::vector<fs::path>& experiment_dirs,
                                               const std::vector<fs::path>& roots) const {
  const auto path = resolve(recorded, experiment_dirs);
  if (!path) return std::nullopt;
  std::error_code ec;
  FoundSource found{*path, fs::canonical(*path, ec), false};
  if (ec) found.real = *path;
  // The very file the debug information names, reached through no symbolic
  // link, is what the program was built from (a build outside its source
  // tree names sources under none of the roots): only a file the named path
  // leads elsewhere from is said to be outside.
  const fs::path named = fs::path(recorded).lexically_normal();
  found.outside = !is_under(found.real, roots) && !(named.is_absolute() && named == found.real);
  return found;
}

std::vector<fs::path> SourcePaths::roots(const std::vector<fs::path>& experiment_dirs,
                                         const std::vector<std::string>& object_paths) const {
  std::vector<fs::path> list;
  for (const fs::path& e : experiment_dirs) list.push_back(real_dir(e));
  for (const std::string& object : object_paths) {
    const fs::path dir = fs::path(object).parent_path();
    // Recorded names are the experiment's word: "/" would make every file inside.
    if (dir.is_absolute() && dir.lexically_normal() != dir.root_path()) list.push_back(real_dir(dir));
  }
  for (const std::string& dir : given_) list.push_back(real_dir(dir));
  for (const auto& [from, to] : maps_) list.push_back(real_dir(to));
  std::vector<fs::path> once;
  for (const fs::path& dir : list)
    if (std::find(once.begin(), once.end(), dir) == once.end()) once.push_back(dir);
  return once;
}

bool is_under(const fs::path& real, const std::vector<fs::path>& roots) {
  return std::any_of(roots.begin(), roots.end(), [&](const fs::path& root) {
    if (root.empty()) return false;
    auto r = root.begin(), p = real.begin();
    for (; r != root.end() && p != real.end(); ++r, ++p)
      if (*r != *p && !r->empty()) return false;
    // "/home/u/" ends in an empty element, which matches anything below it.
    return r == root.end() || (r->empty() && std::next(r) == root.end());
  });
}

std::string found_outside_notice(const std::vector<fs::path>& roots) {
  std::string list;
  for (const fs::path& root : roots) list += (list.empty() ? "" : ", ") + root.string();
  return " (found outside the directories the experiment was recorded from" + (list.empty() ? "" : ": " + list) +
         "; shown because er_print runs as you)";
}

}  // namespace lumen::analysis
