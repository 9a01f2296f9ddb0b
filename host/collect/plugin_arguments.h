// The command-line arguments that decide which plugins collect knows, read
// before the full parse: a plugin named by its path brings its own flag
// (e.g. -i), which the full parse must already know.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plan_resolution.h"
#include "profile.h"

namespace lumen::collect {

struct PluginArguments {
  std::vector<std::string> plugin_paths;  // --plugin DIR, in order
  std::optional<std::string> profile;     // --profile NAME|FILE
};

// Every option but the switches of the flag table takes one value, so the
// scan knows where the target begins without knowing every plugin's flag.
PluginArguments scan_plugin_arguments(const std::vector<std::string>& args);

// The explicit plugin directories: --plugin paths (relative to the current
// directory, as the user typed them) and `path:` entries of the profile
// (relative to the profile's directory).
std::vector<host::PluginDirectory> explicit_plugin_directories(const PluginArguments& arguments,
                                                               const Profile& profile);

// A profile's `NAME: {path: DIR}` must lead to a plugin named NAME.
// Throws ProfileError with the file and line.
void check_profile_plugin_names(const Profile& profile, const std::map<std::string, InstalledPlugin>& plugins);

// collect --list-plugins: each plugin with its version, data file, flag,
// where it was found, its options and its metrics.
void print_plugin_list(std::ostream& out, const std::map<std::string, InstalledPlugin>& plugins);

}  // namespace lumen::collect
