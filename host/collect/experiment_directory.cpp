#include "experiment_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>

#include "command_line.h"
#include "experiment_metadata.h"

namespace lumen::collect {

namespace fs = std::filesystem;

namespace {

fs::path next_free(const fs::path& wanted) {
  fs::path candidate = wanted;
  while (fs::exists(candidate)) {
    const auto next = next_numbered(candidate);
    if (!next) return wanted;
    candidate = *next;
  }
  return candidate;
}

// An experiment that -O may replace: a real directory (not a link to one)
// with a header, so a mistyped name cannot remove anything else.
void check_replaceable(const fs::path& path) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec)) || !fs::is_directory(fs::symlink_status(path, ec)) ||
      !fs::exists(path / metadata::kHeaderFile, ec))
    throw UsageError("'" + path.string() + "' is not an experiment; -O replaces only an experiment");
}

}  // namespace

std::optional<fs::path> next_numbered(const fs::path& path) {
  static const std::regex numbered(R"((.*)\.([0-9]+)\.er)");
  std::smatch m;
  const std::string name = path.filename().string();
  if (!std::regex_match(name, m, numbered)) return std::nullopt;
  return path.parent_path() / (m[1].str() + "." + std::to_string(std::stol(m[2]) + 1) + ".er");
}

fs::path experiment_base_path(const std::optional<std::string>& name, const std::optional<std::string>& directory) {
  const std::string file = name.value_or("test.1.er");
  if (file.size() < 4 || file.substr(file.size() - 3) != ".er")
    throw UsageError("experiment name '" + file + "' must end in .er");
  const fs::path dir = directory ? fs::path(*directory) : fs::path(".");
  if (!fs::is_directory(dir)) throw UsageError("directory '" + dir.string() + "' does not exist");
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError("cannot write in directory '" + dir.string() + "': " + std::strerror(errno));
  return dir / file;
}

fs::path choose_experiment_path(const std::optional<std::string>& name, const std::optional<std::string>& directory,
                                bool overwrite) {
  const fs::path wanted = experiment_base_path(name, directory);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(wanted, ec))) return wanted;
  if (overwrite) {
    check_replaceable(wanted);
    return wanted;
  }
  const fs::path next = next_free(wanted);
  if (next == wanted)
    throw UsageError("experiment '" + wanted.string() + "' exists; it is never overwritten (choose another -o name)");
  return next;
}

fs::path create_experiment_directory(const fs::path& path) {
  fs::path candidate = path;
  while (mkdir(candidate.c_str(), 0755) != 0) {
    if (errno != EEXIST) throw UsageError("cannot create '" + candidate.string() + "': " + std::strerror(errno));
    const fs::path next = next_free(candidate);
    if (next == candidate) throw UsageError("experiment '" + candidate.string() + "' exists");
    candidate = next;
  }
  return fs::absolute(candidate);
}

}  // namespace lumen::collect

namespace lumen::collect {

void remove_replaced_experiment(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return;
  check_replaceable(path);
  fs::remove_all(path, ec);  // does not follow links inside
  if (ec) throw UsageError("cannot replace '" + path.string() + "': " + ec.message());
}

}  // namespace lumen::collect
