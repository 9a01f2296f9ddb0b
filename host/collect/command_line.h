// collect's command line: Oracle's flags, --profile, and the target.
#pragma once

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime_flags.h"

namespace lumen::collect {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CollectRequest {
  std::optional<std::string> profile;
  std::vector<std::pair<std::string, std::string>> plugin_flags;  // ("p", "hi"), in order given
  struct PluginOption {
    std::string flag;    // the plugin owning this flag letter ("j")
    std::string option;  // gets this option ("jvm_options")
    std::string value;
    std::string given_as;  // "-J", for errors
    bool turns_on = true;  // the plugin is used for it (-J); else only set where it is used (-k)
  };
  std::vector<PluginOption> plugin_options;  // a collect flag that sets another option of a plugin (-J)
  std::optional<std::string> experiment_name;                      // -o, -O
  bool overwrite = false;                                          // -O: replace an experiment of that name
  bool verbose = false;                                            // --verbose on, -v
  std::optional<std::string> directory;                            // -d
  std::vector<std::string> comments;                               // -C, repeatable
  std::string follow = "on";                                       // -F on|off|all|=REGEX
  RuntimeSettings runtime;                                         // -S -l -y -t -L -A
  std::vector<std::string> plugin_paths;                           // --plugin DIR, repeatable
  bool list_plugins = false;                                       // --list-plugins
  bool dry_run = false;                                            // -n
  bool show_version = false;                                       // -V
  bool show_help = false;
  std::string describe_flag;  // a plugin's flag given last, without a value ("collect -h"): list its values
  std::vector<std::string> target;
  int attach_pid = 0;  // -P: a running process instead of a target
};

// `plugin_flags` are the flag letters the installed plugins own ("p", ...);
// `describable_flags` those whose plugin lists its values when the flag is
// given last without one ("collect -h").
CollectRequest parse_command_line(const std::vector<std::string>& args, const std::set<std::string>& plugin_flags,
                                  const std::set<std::string>& describable_flags = {});

}  // namespace lumen::collect
