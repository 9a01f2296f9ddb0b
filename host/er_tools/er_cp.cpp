// er_cp [-q] from.er to.er | er_cp [-q] experiment... directory: copies
// experiments, descendants and archives included. A new name must end in
// .er and must not exist; into a directory, each keeps its own name.
// Links inside an experiment are copied as links, never followed. Onto an
// existing founder of the same parallel job (collect run per rank into
// node-local directories), the ranks of `from` join it (job_gather.h).
#include <filesystem>
#include <iostream>

#include "experiment_copy.h"
#include "experiment_files.h"
#include "job_gather.h"
#include "terminal_text.h"

namespace fs = std::filesystem;
using namespace lumen::er_tools;

int main(int argc, char** argv) {
  lumen::write_printable_text_only(std::cout);
  lumen::write_printable_text_only(std::cerr);
  const std::string usage = "er_cp [-q] from.er to.er | er_cp [-q] experiment... directory";
  ToolOptions options;
  try {
    if (!parse_tool_options("er_cp", usage, argc, argv, options)) return 0;
    if (options.operands.size() < 2) throw ToolError("er_cp needs a source and a destination\nusage: " + usage);
  } catch (const ToolError& e) {
    std::cerr << "er_cp: " << e.what() << "\n";
    return 2;
  }
  const fs::path destination = options.operands.back();
  const bool into_directory = fs::is_directory(destination) && destination.extension() != ".er";
  if (!into_directory && options.operands.size() > 2) {
    std::cerr << "er_cp: '" << destination.string() << "' is not a directory to copy several experiments into\n";
    return 2;
  }
  int status = 0;
  for (size_t i = 0; i + 1 < options.operands.size(); ++i) {
    const fs::path from = options.operands[i];
    try {
      require_experiment(from);
      const fs::path to = into_directory ? destination / fs::path(from).lexically_normal().filename() : destination;
      if (fs::is_directory(fs::symlink_status(to)) && job_key(to)) {
        const std::vector<std::string> ranks = gather_ranks(from, to);
        if (!options.quiet) {
          std::cout << "gathered " << ranks.size() << " rank" << (ranks.size() == 1 ? "" : "s") << " of "
                    << from.string() << " into " << to.string() << ":";
          for (const std::string& rank : ranks) std::cout << " " << rank;
          std::cout << "\n";
        }
        continue;
      }
      require_new_experiment_name(to);
      for (const std::string& skipped : copy_experiment(from, to))
        std::cerr << "er_cp: " << skipped << " is not a regular file, directory or link; it is not copied\n";
      if (!options.quiet) std::cout << "copied " << from.string() << " to " << to.string() << "\n";
    } catch (const std::exception& e) {
      std::cerr << "er_cp: " << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}
