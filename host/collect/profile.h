// YAML collection profiles (profiles/*.yaml):
//
//   description: one line
//   plugins:
//     clock:
//       interval: 10ms
//     io:
//       path: plugins/io      a plugin directory outside lumen's own (relative
//                             to the profile's directory); not an option
//
// Every error names the file and line and says what is allowed.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

namespace lumen::collect {

struct ProfileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct WrittenOption {
  std::string value;
  int line = 0;
};

struct PluginSettings {
  int line = 0;
  std::map<std::string, WrittenOption> options;
  WrittenOption path;  // `path:`, the plugin's directory as written; empty: found by name
};

struct Profile {
  std::string path;
  std::string description;
  std::map<std::string, PluginSettings> plugins;
};

// Reads and checks the shape of a profile (not yet its plugins and options).
Profile read_profile(const std::string& path);

}  // namespace lumen::collect
