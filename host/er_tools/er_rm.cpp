// er_rm [-f] [-q] experiment...: removes experiments with their
// descendants and archives. Anything that is not an experiment is refused
// (with -f, a name that does not exist is passed over silently).
#include <filesystem>
#include <iostream>

#include "experiment_files.h"
#include "terminal_text.h"

namespace fs = std::filesystem;
using namespace lumen::er_tools;

int main(int argc, char** argv) {
  lumen::write_printable_text_only(std::cout);
  lumen::write_printable_text_only(std::cerr);
  const std::string usage = "er_rm [-f] [-q] experiment...";
  ToolOptions options;
  try {
    if (!parse_tool_options("er_rm", usage, argc, argv, options)) return 0;
    if (options.operands.empty()) throw ToolError("no experiment given\nusage: " + usage);
  } catch (const ToolError& e) {
    std::cerr << "er_rm: " << e.what() << "\n";
    return 2;
  }
  int status = 0;
  for (const fs::path experiment : options.operands) {
    try {
      if (options.force && !fs::exists(experiment)) continue;
      require_experiment(experiment);
      fs::remove_all(experiment);
      if (!options.quiet) std::cout << "removed " << experiment.string() << "\n";
    } catch (const std::exception& e) {
      std::cerr << "er_rm: " << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}
