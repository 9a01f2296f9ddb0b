// Gathering a parallel job's ranks: where the launcher ran collect once per
// rank into node-local directories, each host holds a founder of the same
// job (its header's job key) with that host's ranks. `er_cp HOST2/job.er
// job.er` copies the ranks of one into the other.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lumen::er_tools {

// The job key of a founder made by its ranks' collect, nullopt for any
// other experiment.
std::optional<std::string> job_key(const std::filesystem::path& experiment);

// Copies each _rankN.er of `from` into `to`, founders of the same job;
// returns the ranks' directory names copied. Throws ToolError, before
// copying anything, when a rank is in both or the jobs differ.
std::vector<std::string> gather_ranks(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace lumen::er_tools
