// What er_rm, er_mv and er_cp share: telling an experiment from any other
// directory, and their common options. An experiment is a directory named
// *.er holding a header.yaml (a founder or a descendant); its descendants
// and archives/ live inside it, so they go wherever it goes.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace lumen::er_tools {

struct ToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws ToolError saying why `path` is not an experiment.
void require_experiment(const std::filesystem::path& path);

// Throws ToolError unless `path` is a name a new experiment may take: ends
// in .er, does not exist, and its directory does.
void require_new_experiment_name(const std::filesystem::path& path);

struct ToolOptions {
  bool force = false;  // -f
  bool quiet = false;  // -q
  std::vector<std::string> operands;
};

// Parses -f, -q, -V and operands; throws ToolError on anything else.
// Returns false when the command should exit at once (after -V or -h).
bool parse_tool_options(const std::string& tool, const std::string& usage, int argc, char** argv,
                        ToolOptions& options);

}  // namespace lumen::er_tools
