// MPI tracing end to end: mpi_exchange_target (built with each installed
// implementation's mpicc) runs under `collect --profile mpi -- mpirun -np N`;
// every rank counts its own MPI calls, messages and bytes, and er_print's
// figures must equal them exactly: per MPI function, per rank, per
// sender/receiver pair, in the function views and the MPI views, and under
// -rank_select.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "mpi_expectations.h"
#include "mpi_jobs.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// (implementation, ranks, collect run by the launcher once per rank)
class MpiJob : public testing::TestWithParam<std::tuple<std::string, int, bool>> {};

TEST_P(MpiJob, FiguresEqualWhatEachRankDid) {
  const auto [name, ranks, per_rank] = GetParam();
  const Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed (no mpicc." << name << "/mpirun." << name << ")";
  JobSpec spec;
  spec.ranks = ranks;
  spec.collect_per_rank = per_rank;
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  const std::string what = name + " with " + std::to_string(ranks) + " ranks" + (per_rank ? ", collect per rank" : "");
  if (per_rank) {
    // The founder is the job's, made by whichever rank came first; it holds
    // no process, and er_print has nothing to say of it.
    std::ifstream in(job.experiment / "header.yaml");
    const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(header.find("job: {launcher: "), std::string::npos) << header;
    EXPECT_NE(header.find("ranks: " + std::to_string(ranks) + "}"), std::string::npos) << header;
    const ProcessResult quiet = run_process({(bin_dir() / "er_print").string(), "-mpi_ranks", job.experiment.string()});
    EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.err, "") << what;
  }
  for (int rank = 0; rank < ranks; ++rank) {
    ASSERT_FALSE(job.truth[rank].is_null()) << what << ": rank " << rank << " wrote no truth";
    const fs::path sub = job.experiment / ("_rank" + std::to_string(rank) + ".er");
    ASSERT_TRUE(fs::exists(sub / "mpitrace")) << what << ": no sub-experiment named by rank " << rank;
    std::ifstream header(sub / "header.yaml");
    const std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("rank: " + std::to_string(rank) + "\n"), std::string::npos) << text;
  }
  expect_per_function(job.experiment, job.truth, what);
  expect_per_rank(job.experiment, job.truth, what);
  expect_messages(job.experiment, job.truth, what);
  expect_timeline(job.experiment, job.truth, what);

  // The function views: <Total> holds every rank's figures; each MPI call
  // is the leaf of its event's stack, a row holding its figures exclusively,
  // under the phase that made it.
  const auto rows = rows_by_name(er_print_json(
      {"-metrics", "e.mpisend:e.mpibytessent:e.mpireceive:e.mpibytesrecv:e.mpiother:i.mpisend:name", "-functions"},
      job.experiment));
  std::map<std::string, double> total;
  for (const json& rank : job.truth)
    for (const auto& [figure, value] : totals_of(rank)) total[figure] += value;
  ASSERT_TRUE(rows.count("<Total>"));
  EXPECT_EQ(rows.at("<Total>").at("e.mpisend").get<double>(), total["sends"]) << what;
  EXPECT_EQ(rows.at("<Total>").at("e.mpibytessent").get<double>(), total["bytes_sent"]) << what;
  EXPECT_EQ(rows.at("<Total>").at("e.mpireceive").get<double>(), total["receives"]) << what;
  EXPECT_EQ(rows.at("<Total>").at("e.mpibytesrecv").get<double>(), total["bytes_received"]) << what;
  EXPECT_EQ(rows.at("<Total>").at("e.mpiother").get<double>(), total["other"]) << what;
  ASSERT_TRUE(rows.count("persistent_phase")) << what;
  // persistent_phase: three Startall calls per rank, one send each.
  EXPECT_EQ(rows.at("persistent_phase").at("i.mpisend").get<double>(), 3.0 * ranks) << what;
  EXPECT_EQ(rows.at("persistent_phase").at("e.mpisend").get<double>(), 0.0) << what;
  ASSERT_TRUE(rows.count("MPI_Startall")) << what;
  EXPECT_EQ(rows.at("MPI_Startall").at("e.mpisend").get<double>(), 3.0 * ranks) << what;
  double by_calls = 0;
  for (const auto& [name, row] : rows)
    if (name.rfind("MPI_", 0) == 0) by_calls += row.at("e.mpisend").get<double>();
  EXPECT_EQ(by_calls, total["sends"]) << what << ": every send on its MPI call's row";
  // -mpi_stats and -functions agree on each MPI function.
  const auto stats = rows_by_name(table_titled(er_print_json({"-mpi_stats"}, job.experiment), "MPI functions"));
  for (const auto& [name, figures] : stats) {
    ASSERT_TRUE(rows.count(name)) << what << ": " << name << " is no row of -functions";
    EXPECT_EQ(rows.at(name).at("e.mpisend").get<double>(), figures.at("mpisend").get<double>()) << what << " " << name;
    EXPECT_EQ(rows.at(name).at("e.mpibytesrecv").get<double>(), figures.at("mpibytesrecv").get<double>())
        << what << " " << name;
  }
  ASSERT_TRUE(rows.count("main")) << what;
  EXPECT_EQ(rows.at("main").at("i.mpisend").get<double>(), total["sends"]) << what;
  // -source of an MPI call (its library has no line information) says so
  // and holds its figures, as -functions does, on one row.
  const json source = er_print_json({"-metrics", "e.mpisend:i.mpisend:name", "-source", "MPI_Startall"}, job.experiment);
  ASSERT_EQ(source.at("rows").size(), 2u) << what << ": " << source.dump();
  EXPECT_NE(source.at("rows")[0].at("name").get<std::string>().find("has no line-number information"), std::string::npos)
      << what << ": " << source.dump();
  EXPECT_EQ(source.at("rows")[1].at("values").at("e.mpisend").get<double>(), 3.0 * ranks) << what << ": " << source.dump();
  EXPECT_EQ(source.at("rows")[1].at("values").at("i.mpisend").get<double>(), 3.0 * ranks) << what << ": " << source.dump();

  // -rank_select: each rank's own figures, and a range of ranks their sum
  // (the launcher's experiments have no rank and drop out).
  for (int rank = 0; rank < ranks; ++rank) {
    const auto selected = rows_by_name(er_print_json(
        {"-rank_select", std::to_string(rank), "-metrics", "e.mpisend:e.mpibytesrecv:e.mpiother:name", "-functions"},
        job.experiment));
    const auto own = totals_of(job.truth[rank]);
    ASSERT_TRUE(selected.count("<Total>")) << what << " rank " << rank;
    EXPECT_EQ(selected.at("<Total>").at("e.mpisend").get<double>(), own.at("sends")) << what << " rank " << rank;
    EXPECT_EQ(selected.at("<Total>").at("e.mpibytesrecv").get<double>(), own.at("bytes_received")) << what << " rank " << rank;
    EXPECT_EQ(selected.at("<Total>").at("e.mpiother").get<double>(), own.at("other")) << what << " rank " << rank;
  }
  // The MPI views under -rank_select: the odd ranks' calls, the messages
  // they sent and those they received, and rows for them only.
  RankSelection odd;
  std::string list;
  for (int rank = 1; rank < ranks; rank += 2) {
    odd.ranks.insert(rank);
    list += (list.empty() ? "" : ",") + std::to_string(rank);
  }
  odd.args = {"-rank_select", list};
  expect_per_function(job.experiment, job.truth, what + ", ranks " + list, odd);
  expect_per_rank(job.experiment, job.truth, what + ", ranks " + list, odd);
  expect_messages(job.experiment, job.truth, what + ", ranks " + list, odd);
  // Every MPI call is made by each rank's main thread (thread 1): under
  // -thread_select 2 (the MPI library's own threads) the views hold nothing.
  const nlohmann::json others = er_print_json({"-thread_select", "2", "-mpi_stats"}, job.experiment);
  EXPECT_TRUE(table_titled(others, "MPI functions").at("rows").empty()) << what << ": " << others.dump();
  EXPECT_EQ(others.at("summary").at("calls").get<double>(), 0.0) << what;

  const auto upper = rows_by_name(er_print_json(
      {"-rank_select", "1-" + std::to_string(ranks - 1), "-metrics", "e.mpibytessent:name", "-functions"}, job.experiment));
  double upper_bytes = 0;
  for (int rank = 1; rank < ranks; ++rank) upper_bytes += totals_of(job.truth[rank]).at("bytes_sent");
  ASSERT_TRUE(upper.count("<Total>")) << what;
  EXPECT_EQ(upper.at("<Total>").at("e.mpibytessent").get<double>(), upper_bytes) << what << " ranks 1-" << ranks - 1;
}

std::string job_name(const testing::TestParamInfo<MpiJob::ParamType>& info) {
  return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param)) + "_ranks" +
         (std::get<2>(info.param) ? "_collect_per_rank" : "");
}
INSTANTIATE_TEST_SUITE_P(Implementations, MpiJob,
                         testing::Combine(testing::Values("openmpi", "mpich"), testing::Values(2, 4),
                                          testing::Values(false)),
                         job_name);
INSTANTIATE_TEST_SUITE_P(PerRankCollect, MpiJob,
                         testing::Combine(testing::Values("openmpi", "mpich"), testing::Values(4), testing::Values(true)),
                         job_name);

// collect run once per rank: jobs without -o take the next free numbered
// founder each, all of a job's ranks in one; a job never joins another's
// founder (its ranks refuse it, naming it); a rank whose sub-experiment is
// gone is named by er_print.
class MpiPerRank : public testing::TestWithParam<std::string> {};

TEST_P(MpiPerRank, EachJobItsOwnFounderAndAMissingRankIsNamed) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  const TempDir dir;
  const auto job = [&](const std::vector<std::string>& collect_args) {
    std::vector<std::string> argv{mpi.launcher};
    argv.insert(argv.end(), mpi.launcher_options.begin(), mpi.launcher_options.end());
    argv.insert(argv.end(), {"-np", "2", (bin_dir() / "collect").string(), "-d", dir.path().string()});
    argv.insert(argv.end(), collect_args.begin(), collect_args.end());
    argv.insert(argv.end(), {"--profile", "mpi", mpi.target("mpi_exchange_target"), dir.path().string()});
    return run_process(argv);
  };
  for (int n = 1; n <= 2; ++n) {
    const ProcessResult r = job({});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* rank : {"_rank0.er", "_rank1.er"})
      EXPECT_TRUE(fs::exists(dir.path() / ("test." + std::to_string(n) + ".er") / rank / "mpitrace"))
          << "job " << n << " " << rank << "\n" << r.err;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "test.3.er"));

  // A name without a number is this job's or refused.
  const ProcessResult named = job({"-o", "named.er"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  const ProcessResult refused = job({"-o", "named.er"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("named.er' exists and is not the founder of this job"), std::string::npos) << refused.err;
  EXPECT_TRUE(fs::exists(dir.path() / "named.er" / "_rank1.er" / "mpitrace"));

  const fs::path founder = dir.path() / "test.2.er";
  fs::remove_all(founder / "_rank1.er");
  const ProcessResult missing = run_process({(bin_dir() / "er_print").string(), "-mpi_ranks", founder.string()});
  EXPECT_EQ(missing.exit_code, 0) << missing.err;
  EXPECT_NE(missing.err.find("the job had 2 ranks, but rank 1 recorded no experiment here"), std::string::npos)
      << missing.err;
}

INSTANTIATE_TEST_SUITE_P(Implementations, MpiPerRank, testing::Values("openmpi", "mpich"));

class MpiSettings : public testing::TestWithParam<std::string> {};

// VT_STACKS=0: the same figures, with no call stacks to attribute them to.
TEST_P(MpiSettings, StacksOffKeepsTheFigures) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  JobSpec spec;
  spec.env = {{"VT_STACKS", "0"}};
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  expect_per_function(job.experiment, job.truth, GetParam() + " with VT_STACKS=0");
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.mpisend:i.mpisend:name", "-functions"}, job.experiment));
  double sends = 0;
  for (const json& rank : job.truth) sends += totals_of(rank)["sends"];
  ASSERT_TRUE(rows.count("<Total>"));
  EXPECT_EQ(rows.at("<Total>").at("e.mpisend").get<double>(), sends);
  for (const char* function : {"main", "ring_phase", "persistent_phase"})
    EXPECT_EQ(rows.count(function) ? rows.at(function).at("i.mpisend").get<double>() : 0.0, 0.0)
        << function << " has MPI sends although no stack was recorded";
}

// collect -y SIGUSR2: recording starts paused and each rank toggles its
// own. A call entered while recording is recorded whenever it ends (rank
// 0's last receive ends after its pause), one entered while paused never,
// and each rank is known by its rank though MPI_Init ran paused.
TEST_P(MpiSettings, CallsEnteredWhileRecordingAreCountedExactly) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  JobSpec spec;
  spec.program = "mpi_window_target";
  spec.truth_prefix = "window";
  spec.collect_args = {"--profile", "mpi", "-y", "SIGUSR2"};
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  const json ranks = er_print_json({"-mpi_ranks"}, job.experiment);
  for (size_t rank = 0; rank < job.truth.size(); ++rank) {
    ASSERT_FALSE(job.truth[rank].is_null()) << "rank " << rank << " wrote no account";
    EXPECT_NE(ranks.dump().find("\"rank " + std::to_string(rank) + " on "), std::string::npos) << ranks.dump();
    const auto rows = rows_by_name(table_titled(
        er_print_json({"-rank_select", std::to_string(rank), "-mpi_stats"}, job.experiment), "MPI functions"));
    for (const auto& [function, calls] : job.truth[rank].at("recorded").items()) {
      ASSERT_TRUE(rows.count(function)) << "rank " << rank << ": " << function << " missing";
      EXPECT_EQ(rows.at(function).at("calls").get<double>(), calls.get<double>())
          << "rank " << rank << ": " << function;
    }
    EXPECT_EQ(rows.count("MPI_Barrier"), 0u) << "rank " << rank << ": a call entered while paused was recorded";
  }
}

// Clock profiling and heap tracing on every process of the job, the
// launcher's daemons included: they dlopen plugins on several threads while
// others allocate, the case where unwinding must not wait for the linker's
// lock. Every process finishes and the MPI figures stay exact.
TEST_P(MpiSettings, WithClockProfilingAndHeapTracingEveryProcessFinishes) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  JobSpec spec;
  spec.collect_args = {"--profile", "mpi", "-p", "hi", "-H", "on"};
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  expect_per_function(job.experiment, job.truth, GetParam() + " with -p hi -H on");
}

// VT_MAX_FLUSHES=1: each rank traces until one VT_BUFFER_SIZE buffer is
// full, then stops; the experiment says the trace is incomplete, and what
// was recorded is the beginning of what the program did.
TEST_P(MpiSettings, MaxFlushesStopsTracingAndSaysSo) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  constexpr int kBufferBytes = 2048;
  JobSpec spec;
  spec.env = {{"VT_MAX_FLUSHES", "1"}, {"VT_BUFFER_SIZE", std::to_string(kBufferBytes)}};
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  const json stats = er_print_json({"-mpi_stats"}, job.experiment);
  EXPECT_EQ(stats.at("summary").at("incomplete_traces").get<double>(), 2.0);
  const auto expected = truth_by_function(job.truth);
  double recorded_calls = 0, made_calls = 0;
  for (const auto& [name, values] : rows_by_name(table_titled(stats, "MPI functions"))) {
    ASSERT_TRUE(expected.count(name)) << name << " recorded but never called";
    EXPECT_LE(values.at("calls").get<double>(), expected.at(name).at("calls")) << name;
    recorded_calls += values.at("calls").get<double>();
  }
  for (const auto& [name, figures] : expected) made_calls += figures.at("calls");
  EXPECT_GT(recorded_calls, 0);
  // A call record takes 84 bytes of the buffer: no rank holds more calls.
  EXPECT_LE(recorded_calls, 2.0 * (kBufferBytes / 84));
  EXPECT_LT(recorded_calls, made_calls);
  for (int rank = 0; rank < 2; ++rank) {
    std::ifstream log(job.experiment / ("_rank" + std::to_string(rank) + ".er") / "collector.log");
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("trace incomplete"), std::string::npos) << text;
  }
  EXPECT_NE(job.run.err.find("trace incomplete"), std::string::npos) << "VT_VERBOSE=1 reports it on stderr";
}

// The last rank calls MPI_Abort after the ring and a barrier, once the
// others have written their account; they, blocked in a receive that never
// completes, are killed by the launcher. Every rank's data up to that point
// survives, MPI_Abort included.
TEST_P(MpiSettings, AbortingRankLeavesEveryRanksData) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  JobSpec spec;
  spec.ranks = 4;
  spec.target_args = {"abort"};
  const Job job = run_job(mpi, spec);
  EXPECT_NE(job.run.exit_code, 0) << "the job aborted";
  for (int rank = 0; rank < 4; ++rank) ASSERT_FALSE(job.truth[rank].is_null()) << "rank " << rank;
  expect_per_function(job.experiment, job.truth, GetParam() + " with an aborting rank");
  expect_per_rank(job.experiment, job.truth, GetParam() + " with an aborting rank");
}

// er_otf2 writes the trace as OTF2; otf2-print reads back one Enter/Leave
// pair per call and one MpiSend/MpiRecv per message, per rank.
TEST_P(MpiSettings, Otf2ExportReadsBack) {
#ifndef LUMEN_OTF2_PRINT
  GTEST_SKIP() << "otf2-print or er_otf2 was not built (libotf2-trace-dev, otf2-tools)";
#else
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  const Job job = run_job(mpi, JobSpec());
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  const fs::path archive = job.dir->path() / "otf2";
  const ProcessResult exported = run_process({(bin_dir() / "er_otf2").string(), job.experiment.string(), archive.string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const ProcessResult printed = run_process({LUMEN_OTF2_PRINT, (archive / "traces.otf2").string()});
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.err.find("warning"), std::string::npos) << printed.err;
  // Lines: "EVENT  LOCATION  TIMESTAMP  ATTRIBUTES".
  std::map<std::string, std::map<int, double>> counts;  // event -> location -> count
  std::istringstream lines(printed.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string event;
    int location = -1;
    if (words >> event >> location) counts[event][location] += 1;
  }
  for (int rank = 0; rank < 2; ++rank) {
    const auto totals = totals_of(job.truth[rank]);
    EXPECT_EQ(counts["ENTER"][rank], totals.at("calls")) << "rank " << rank;
    EXPECT_EQ(counts["LEAVE"][rank], totals.at("calls")) << "rank " << rank;
    EXPECT_EQ(counts["MPI_SEND"][rank], totals.at("sends")) << "rank " << rank;
    EXPECT_EQ(counts["MPI_RECV"][rank], totals.at("receives")) << "rank " << rank;
  }
#endif
}

INSTANTIATE_TEST_SUITE_P(Implementations, MpiSettings, testing::Values("openmpi", "mpich"));

}  // namespace
}  // namespace lumen::test
