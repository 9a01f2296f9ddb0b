// er_print's commands: one table, each with its argument count and help.
// On the command line a command is written "-name args"; at the prompt or
// in a script, "name args".
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "session.h"

namespace lumen::er_print {

struct Command {
  std::string name;
  size_t argument_count;
  std::string arguments;  // for help: "SPEC"
  std::string help;
  std::function<void(Session&, const std::vector<std::string>&)> run;
};

const std::vector<Command>& command_table();

// A built-in command, or a view added by an installed plugin; nullopt when
// neither has that name.
std::optional<Command> find_command(const std::string& name, const analysis::AnalysisPlugins& plugins);

}  // namespace lumen::er_print
