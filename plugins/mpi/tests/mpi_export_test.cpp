// An MPI job through er_print's exports: each rank is a process of its own
// (named by its rank) in the Chrome trace, with its MPI calls on its
// threads, and carries its rank as a label in pprof (read back with
// `go tool pprof -raw` where Debian's golang-go is installed).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "mpi_jobs.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class MpiExport : public testing::TestWithParam<std::string> {};

ProcessResult export_to(const Job& job, const std::string& format, const fs::path& file) {
  return run_process({(bin_dir() / "er_print").string(), "-export", format, file.string(), job.experiment.string()});
}

TEST_P(MpiExport, RanksAreProcessesInChromeAndPprof) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  JobSpec spec;
  spec.ranks = 2;
  spec.collect_args = {"--profile", "mpi", "-p", "on"};
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;

  const fs::path trace = job.dir->path() / "trace.json";
  const ProcessResult chrome = export_to(job, "chrome", trace);
  ASSERT_EQ(chrome.exit_code, 0) << chrome.err;
  std::ifstream in(trace);
  const json document = json::parse(in);
  std::map<int64_t, std::string> process_names;  // pid -> name
  std::map<int64_t, int> mpi_calls;              // pid -> MPI call events
  for (const json& event : document.at("traceEvents")) {
    if (event.value("ph", "") == "M" && event.value("name", "") == "process_name")
      process_names[event.at("pid").get<int64_t>()] = event.at("args").at("name").get<std::string>();
    else if (event.value("cat", "") == "mpi")
      ++mpi_calls[event.at("pid").get<int64_t>()];
  }
  std::map<int, int64_t> pid_of_rank;
  for (const auto& [pid, name] : process_names)
    for (int rank = 0; rank < spec.ranks; ++rank)
      if (name.rfind("rank " + std::to_string(rank) + ":", 0) == 0) pid_of_rank[rank] = pid;
  ASSERT_EQ(pid_of_rank.size(), 2u) << chrome.out << " processes: " << json(process_names).dump();
  EXPECT_NE(pid_of_rank.at(0), pid_of_rank.at(1));
  for (const auto& [rank, pid] : pid_of_rank) {
    // Each rank's MPI calls are its own process's: as many as the rank counted.
    const json& truth = job.truth.at(rank);
    ASSERT_FALSE(truth.is_null()) << "rank " << rank << " wrote no truth";
    int counted = 0;
    for (const auto& [function, figures] : truth.at("functions").items()) counted += figures.at("calls").get<int>();
    EXPECT_EQ(mpi_calls[pid], counted) << "rank " << rank;
  }

  const ProcessResult which = run_process({"sh", "-c", "command -v go"});
  if (which.exit_code != 0) GTEST_SKIP() << "go (Debian golang-go) is not installed: the pprof export is not read back";
  const fs::path profile = job.dir->path() / "profile.pb.gz";
  const ProcessResult pprof = export_to(job, "pprof", profile);
  ASSERT_EQ(pprof.exit_code, 0) << pprof.err;
  const std::map<std::string, std::string> env = {{"HOME", job.dir->path().string()},
                                                  {"GOCACHE", (job.dir->path() / "gocache").string()}};
  const ProcessResult raw = run_process({"go", "tool", "pprof", "-raw", profile.string()}, env, "", 120);
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  for (int rank = 0; rank < spec.ranks; ++rank)
    EXPECT_NE(raw.out.find("rank:[" + std::to_string(rank) + "]"), std::string::npos) << "rank " << rank << " label";
}

INSTANTIATE_TEST_SUITE_P(Implementations, MpiExport, testing::Values("openmpi", "mpich"));

}  // namespace
}  // namespace lumen::test
