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
  // Arguments that may follow the required ones: an experiment id
  // ("header 1") or which of several same-named functions ("fsingle f 2").
  size_t optional_count = 0;
};

const std::vector<Command>& command_table();

// "2" -> 2; throws CommandError for what is not an experiment id.
size_t experiment_id(const std::string& text);

// gprofng's `#` argument, which of several functions of one name ("2" ->
// 2, from 1); throws CommandError for anything else.
size_t function_number(const std::string& text);

// Throws CommandError when no experiment is open.
void require_experiments(Session& s);

// The commands of gprofng's table beyond the everyday ones (listings, index
// objects, load object visibility, stack fragments, experiments at the
// prompt); command_table() includes them.
// `base`: the everyday commands, which some of them are aliases of.
std::vector<Command> gprofng_commands(const std::vector<Command>& base);

// gprofng commands that need data this platform cannot record: found after
// the plugins' views (a plugin may offer the view), they say why.
const std::vector<Command>& refused_commands();

// A built-in command, or a view added by an installed plugin; nullopt when
// neither has that name.
std::optional<Command> find_command(const std::string& name, const analysis::AnalysisPlugins& plugins);

}  // namespace lumen::er_print
