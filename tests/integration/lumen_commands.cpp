#include "lumen_commands.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace lumen::test {

Collection collect(const TempDir& dir, const std::vector<std::string>& collect_args, const std::string& target,
                   const std::vector<std::string>& target_args) {
  Collection c;
  c.experiment = dir.path() / "run.er";
  const auto truth_file = dir.path() / "truth.json";
  std::vector<std::string> argv{(bin_dir() / "collect").string(), "-o", "run.er", "-d", dir.path().string()};
  argv.insert(argv.end(), collect_args.begin(), collect_args.end());
  argv.push_back((target_dir() / target).string());
  argv.insert(argv.end(), target_args.begin(), target_args.end());
  c.run = run_process(argv, {{"LUMEN_TEST_TRUTH", truth_file.string()}});
  std::ifstream in(truth_file);
  if (in) c.truth = nlohmann::json::parse(in);
  return c;
}

ProcessResult run_without_collect(const std::string& target, const std::vector<std::string>& target_args) {
  std::vector<std::string> argv{(target_dir() / target).string()};
  argv.insert(argv.end(), target_args.begin(), target_args.end());
  return run_process(argv);
}

bool log_has_end(const std::filesystem::path& experiment) {
  std::ifstream log(experiment / "collector.log");
  std::string line;
  while (std::getline(log, line))
    if (line.find("event: end") != std::string::npos) return true;
  return false;
}

nlohmann::json er_print_json(const std::vector<std::string>& args, const std::filesystem::path& experiment) {
  std::vector<std::string> argv{(bin_dir() / "er_print").string(), "--format=json"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(experiment.string());
  const ProcessResult r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

std::map<std::string, nlohmann::json> rows_by_name(const nlohmann::json& view) {
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : view.at("rows")) rows[row.at("name").get<std::string>()] = row.at("values");
  return rows;
}

double sampling_tolerance(double truth, double interval) {
  const double quantum = std::max(interval, 0.004);
  return 5 * quantum + 0.05 * truth;
}

double machine_steal_seconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double fields[8] = {};
  stat >> cpu;
  for (double& field : fields) stat >> field;
  return fields[7] / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace lumen::test
