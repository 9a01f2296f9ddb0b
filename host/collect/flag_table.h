// collect's own flags: one table, each with the value it takes and its
// help; the command line is parsed and the usage text generated from it.
// Plugins' flags (-p, -h, ...) come from their descriptors, not from here.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "command_line.h"
#include "plan_resolution.h"

namespace lumen::collect {

struct Flag {
  std::vector<std::string> names;  // "-o"; a switch may have aliases: "-V", "--version"
  std::string value;               // for help: "NAME.er"; empty for a switch
  std::string help;                // empty: not listed (aliases of --help)
  std::function<void(CollectRequest&, const std::string& value)> apply;  // throws UsageError

  bool is_switch() const { return value.empty(); }
};

const std::vector<Flag>& flag_table();

// The flag `arg` names ("-o", "--profile" or "--profile=x"), or null.
const Flag* find_flag(const std::string& arg);

// collect --help: the table, the installed plugins' flags after --profile.
std::string usage_text(const std::map<std::string, InstalledPlugin>& installed);

}  // namespace lumen::collect
