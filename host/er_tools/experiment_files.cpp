#include "experiment_files.h"

#include <iostream>

#include "experiment_metadata.h"
#include "lumen_version.h"

namespace lumen::er_tools {

namespace fs = std::filesystem;

void require_experiment(const fs::path& path) {
  if (!fs::exists(path)) throw ToolError("'" + path.string() + "' does not exist");
  if (!fs::is_directory(path) || path.extension() != ".er" || !fs::exists(path / metadata::kHeaderFile))
    throw ToolError("'" + path.string() + "' is not an experiment (a directory named *.er with a header.yaml)");
}

void require_new_experiment_name(const fs::path& path) {
  if (path.extension() != ".er") throw ToolError("'" + path.string() + "': an experiment's name must end in .er");
  if (fs::exists(path)) throw ToolError("'" + path.string() + "' exists; it is never overwritten");
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::is_directory(parent)) throw ToolError("directory '" + parent.string() + "' does not exist");
}

bool parse_tool_options(const std::string& tool, const std::string& usage, int argc, char** argv,
                        ToolOptions& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) options.operands.push_back(argv[i]);
      break;
    }
    if (arg == "-f") options.force = true;
    else if (arg == "-q") options.quiet = true;
    else if (arg == "-V") {
      std::cout << tool << " (lumen) " << LUMEN_VERSION << "\n";
      return false;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << "usage: " << usage << "\n";
      return false;
    } else if (!arg.empty() && arg[0] == '-') {
      throw ToolError("unknown option '" + arg + "'\nusage: " + usage);
    } else {
      options.operands.push_back(arg);
    }
  }
  return true;
}

}  // namespace lumen::er_tools
