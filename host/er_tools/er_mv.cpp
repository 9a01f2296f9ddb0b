// er_mv [-q] from.er to.er: renames an experiment, descendants and
// archives included. The new name must end in .er and must not exist.
#include <filesystem>
#include <iostream>

#include "experiment_copy.h"
#include "experiment_files.h"
#include "terminal_text.h"

namespace fs = std::filesystem;
using namespace lumen::er_tools;

int main(int argc, char** argv) {
  lumen::write_printable_text_only(std::cout);
  lumen::write_printable_text_only(std::cerr);
  const std::string usage = "er_mv [-q] from.er to.er";
  ToolOptions options;
  try {
    if (!parse_tool_options("er_mv", usage, argc, argv, options)) return 0;
    if (options.operands.size() != 2) throw ToolError("er_mv takes two experiment names\nusage: " + usage);
    const fs::path from = options.operands[0], to = options.operands[1];
    require_experiment(from);
    require_new_experiment_name(to);
    std::error_code error;
    fs::rename(from, to, error);
    if (error == std::errc::cross_device_link) {
      // Another file system: copy, then remove the original.
      const std::vector<std::string> skipped = copy_experiment(from, to);
      for (const std::string& path : skipped)
        std::cerr << "er_mv: " << path << " is not a regular file, directory or link; it is not moved\n";
      if (!skipped.empty()) throw ToolError("'" + from.string() + "' is kept, since not all of it was moved");
      fs::remove_all(from);
    } else if (error) {
      throw ToolError("cannot move '" + from.string() + "' to '" + to.string() + "': " + error.message());
    }
    if (!options.quiet) std::cout << "moved " << from.string() << " to " << to.string() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "er_mv: " << e.what() << "\n";
    return 1;
  }
}
