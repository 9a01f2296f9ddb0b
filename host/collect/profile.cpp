#include "profile.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <map>

namespace lumen::collect {

namespace {

[[noreturn]] void fail(const std::string& path, const YAML::Node& node, const std::string& message) {
  throw ProfileError(path + ":" + std::to_string(node.Mark().line + 1) + ": " + message);
}

std::string scalar(const std::string& path, const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) fail(path, node, what + " must be a single value");
  return node.as<std::string>();
}

// A key written twice in one mapping: YAML leaves it to the reader, and a
// silent last-wins would drop what the first one said.
void refuse_repeated_keys(const std::string& path, const YAML::Node& mapping, const std::string& what) {
  std::map<std::string, int> lines;
  for (const auto& entry : mapping) {
    const std::string key = entry.first.as<std::string>();
    const auto [first, fresh] = lines.emplace(key, entry.first.Mark().line + 1);
    if (!fresh)
      fail(path, entry.first, what + " '" + key + "' is written twice (first at line " +
                                  std::to_string(first->second) + ")");
  }
}

}  // namespace

Profile read_profile(const std::string& path) {
  // A directory or a FIFO opens as a stream and fails (or blocks) later.
  struct stat file;
  if (stat(path.c_str(), &file) == 0 && !S_ISREG(file.st_mode))
    throw ProfileError(path + ": " + (S_ISDIR(file.st_mode) ? "a directory" : "not a regular file") +
                       ", not a profile (a YAML file, or a shipped profile's name)");
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw ProfileError(path + ": cannot read the profile");
  } catch (const YAML::ParserException& e) {
    throw ProfileError(path + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  Profile profile;
  profile.path = path;
  if (root.IsNull()) return profile;
  if (!root.IsMap()) fail(path, root, "a profile is a mapping with the keys 'description' and 'plugins'");
  refuse_repeated_keys(path, root, "key");
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (key == "description") {
      profile.description = scalar(path, entry.second, "'description'");
    } else if (key == "plugins") {
      if (entry.second.IsNull()) continue;
      if (!entry.second.IsMap()) fail(path, entry.second, "'plugins' maps plugin names to their options");
      refuse_repeated_keys(path, entry.second, "plugin");
      for (const auto& plugin : entry.second) {
        PluginSettings settings;
        settings.line = plugin.first.Mark().line + 1;
        const YAML::Node& options = plugin.second;
        if (!options.IsNull() && !options.IsMap())
          fail(path, options, "the options of plugin '" + plugin.first.as<std::string>() + "' must be a mapping");
        if (options.IsMap()) refuse_repeated_keys(path, options, "option");
        if (options.IsMap())
          for (const auto& option : options) {
            const std::string key = option.first.as<std::string>();
            WrittenOption written{scalar(path, option.second, "option '" + key + "'"), option.first.Mark().line + 1};
            if (key == "path") settings.path = written;
            else settings.options[key] = written;
          }
        profile.plugins[plugin.first.as<std::string>()] = settings;
      }
    } else {
      fail(path, entry.first, "unknown key '" + key + "'; allowed: description, plugins");
    }
  }
  return profile;
}

}  // namespace lumen::collect
