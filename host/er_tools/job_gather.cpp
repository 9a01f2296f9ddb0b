#include "job_gather.h"

#include <algorithm>
#include <regex>

#include "experiment_copy.h"
#include "experiment_files.h"
#include "experiment_format.h"

namespace lumen::er_tools {

namespace fs = std::filesystem;

// A founder of a job holding no process (its ranks made it) names the job
// under `job`; one collect made around a launcher, whose ranks may have
// founded the job on other hosts, under `job_key`.
std::optional<std::string> job_key(const fs::path& experiment) {
  try {
    const YAML::Node header = analysis::read_experiment_header(experiment);
    const YAML::Node job = header["job"];
    std::string key;
    if (job && job.IsMap()) key = job["key"].as<std::string>("");
    else if (header["job_key"] && header["job_key"].IsScalar()) key = header["job_key"].as<std::string>("");
    if (key.empty()) return std::nullopt;
    return key;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> gather_ranks(const fs::path& from, const fs::path& to) {
  const auto from_job = job_key(from), to_job = job_key(to);
  if (!from_job || !to_job || *from_job != *to_job)
    throw ToolError("'" + to.string() + "' exists, and '" + from.string() +
                    "' is not a founder of the same parallel job whose ranks could join it; it is never overwritten");
  static const std::regex kRank(R"(_rank[0-9]+\.er)");
  std::vector<std::string> ranks;
  for (const fs::directory_entry& entry : fs::directory_iterator(from)) {
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, kRank) || fs::is_symlink(entry.symlink_status()) || !entry.is_directory()) continue;
    ranks.push_back(name);
  }
  std::sort(ranks.begin(), ranks.end());
  for (const std::string& name : ranks)
    if (fs::exists(fs::symlink_status(to / name)))
      throw ToolError(name + " is in both '" + from.string() + "' and '" + to.string() + "'; nothing was copied");
  for (const std::string& name : ranks) copy_experiment(from / name, to / name);
  return ranks;
}

}  // namespace lumen::er_tools
