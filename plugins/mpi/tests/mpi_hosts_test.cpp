// MPI jobs across hosts: two hosts made on this machine (tools/test-hosts.sh:
// network namespaces with their own addresses and host names, this file
// system shared), the launcher on a third, 4 ranks, 2 a host. The hosts are
// reached through real ssh to each host's own sshd (MpiAcrossHosts), as on
// a cluster, or through tools/test-hosts.sh as each launcher's agent (Open
// MPI's plm_rsh_agent, MPICH Hydra's -launcher-exec), which keeps the
// launcher's environment (the clock skew the tests set there). Both
// launch forms (collect wrapping the launcher; the launcher running collect
// once per rank) record one founder whose ranks' figures equal what each
// rank counted, each rank on the host it ran on. The second host's
// monotonic clock runs an hour ahead of the first's (as hosts booted at
// other times): the timeline places every rank on one clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>

#include "lumen_commands.h"
#include "mpi_expectations.h"
#include "mpi_jobs.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kHosts = LUMEN_TEST_HOSTS;  // tools/test-hosts.sh

// Two hosts for a suite's tests, removed after them.
template <typename Param>
class OnTwoHosts : public testing::TestWithParam<Param> {
 protected:
  static void SetUpTestSuite() {
    const ProcessResult made = run_process({kHosts, "create", "2"});
    if (made.exit_code != 0) *unavailable_ = "the hosts could not be made here: " + made.err;
  }
  static void TearDownTestSuite() { run_process({kHosts, "remove"}); }
  static inline std::string* unavailable_ = new std::string;
};

// (implementation, collect run by the launcher once per rank)
class MpiAcrossHosts : public OnTwoHosts<std::tuple<std::string, bool>> {};
class MpiNodeLocal : public OnTwoHosts<std::string> {};
class MpiClockAlignment : public OnTwoHosts<std::tuple<std::string, bool>> {};
class MpiRankKilled : public OnTwoHosts<std::string> {};

// The ssh client of the hosts' own sshd (where sshd is installed): what a
// command run through it inherits is a login's environment, as on a
// cluster, not the launcher's.
const std::string kSsh = "/tmp/lumen-test-hosts/ssh/ssh";

// The launcher's options that place ranks on `hosts` (by default 2 on each
// host) through `agent` (tools/test-hosts.sh, which keeps the launcher's
// environment, or kSsh); 10.77.0.1 is the launcher's own host.
std::vector<std::string> across_hosts(const std::string& name, const std::string& agent = kHosts,
                                      const std::string& hosts = "10.77.0.2:2,10.77.0.3:2") {
  if (name == "openmpi")
    return {"--allow-run-as-root", "--mca", "plm_rsh_agent", agent, "--mca", "oob_tcp_if_include",
            "10.77.0.0/24", "--mca", "btl_tcp_if_include", "10.77.0.0/24", "--mca", "btl", "tcp,self", "--host",
            hosts};
  return {"-localhost", "10.77.0.1", "-launcher", "ssh", "-launcher-exec", agent, "-hosts", hosts};
}

// Four ranks, two a host, the launcher on a host of its own.
JobSpec four_ranks_on_two_hosts(bool collect_per_rank) {
  JobSpec spec;
  spec.ranks = 4;
  spec.collect_per_rank = collect_per_rank;
  spec.prefix = {kHosts, "launch"};
  return spec;
}

// Ranks 0 and 1 on the first host, 2 and 3 on the second: -host_list
// names both with their ranks; -mpi_hosts sums each host's ranks' figures
// and the messages between the hosts as the ranks counted them;
// -host_select (by name and by number) leaves one host's ranks, in every
// MPI view; the Hosts index object has a row of each.
void expect_per_host(const fs::path& experiment, const std::vector<json>& truth, const std::string& what) {
  const auto host_of = [](int rank) { return std::string(rank < 2 ? "lumen-h1" : "lumen-h2"); };
  std::map<std::string, int> host_number;
  const json host_list = er_print_json({"-host_list"}, experiment);
  for (const json& row : host_list.at("hosts")) {
    const std::string name = row.at("host");
    host_number[name] = static_cast<int>(row.at("id").get<double>());
    if (name == "lumen-h1" || name == "lumen-h2") {
      EXPECT_EQ(row.at("ranks"), name == "lumen-h1" ? "0,1" : "2,3") << what << row.dump();
    }
  }
  ASSERT_TRUE(host_number.count("lumen-h1") && host_number.count("lumen-h2")) << what << host_list.dump();

  const json hosts = er_print_json({"-mpi_hosts"}, experiment);
  const auto rows = table_titled(hosts, "MPI hosts").at("rows");
  ASSERT_EQ(rows.size(), 2u) << what << hosts.dump();
  for (const json& row : rows) {
    const std::string name = row.at("name");
    const bool first = name == "lumen-h1 (ranks 0, 1)";
    EXPECT_TRUE(first || name == "lumen-h2 (ranks 2, 3)") << what << ": " << name;
    std::map<std::string, double> expected;
    for (int rank = first ? 0 : 2; rank < (first ? 2 : 4); ++rank)
      for (const auto& [figure, value] : totals_of(truth[rank])) expected[figure] += value;
    for (size_t i = 0; i < std::size(kFigures); ++i)
      EXPECT_EQ(row.at("values").at(kColumns[i]).get<double>(), expected[kFigures[i]]) << what << ": " << name << " "
                                                                                         << kColumns[i];
  }
  std::map<std::string, std::pair<double, double>> between;
  for (int rank = 0; rank < 4; ++rank)
    for (const auto& [to, figures] : truth[rank].at("sent_to").items()) {
      auto& [messages, bytes] = between[host_of(rank) + " -> " + host_of(std::stoi(to))];
      messages += figures.at("messages").get<double>();
      bytes += figures.at("bytes").get<double>();
    }
  const auto pairs = table_titled(hosts, "Messages sent by sender host and receiver host").at("rows");
  EXPECT_EQ(pairs.size(), between.size()) << what << pairs.dump();
  for (const json& row : pairs) {
    const auto expected = between.find(row.at("name").get<std::string>());
    ASSERT_NE(expected, between.end()) << what << row.dump();
    EXPECT_EQ(row.at("values").at("messages").get<double>(), expected->second.first) << what << row.dump();
    EXPECT_EQ(row.at("values").at("bytes").get<double>(), expected->second.second) << what << row.dump();
  }

  const RankSelection second{{2, 3}, {"-host_select", "lumen-h2"}};
  expect_per_function(experiment, truth, what + ", -host_select lumen-h2", second);
  expect_per_rank(experiment, truth, what + ", -host_select lumen-h2", second);
  const RankSelection first{{0, 1}, {"-host_select", std::to_string(host_number["lumen-h1"])}};
  expect_messages(experiment, truth, what + ", -host_select by number", first);

  std::set<std::string> index_rows;
  const json by_host = er_print_json({"-indxobj", "Hosts"}, experiment);
  for (const json& row : by_host.at("rows"))
    index_rows.insert(row.at("name").get<std::string>());
  for (const char* name : {"lumen-h1", "lumen-h2"})
    EXPECT_TRUE(index_rows.count("Host " + std::to_string(host_number[name]) + " (" + name + ")"))
        << what << ": no Hosts row of " << name;
}

TEST_P(MpiAcrossHosts, EachRankOnItsHostWithItsOwnFigures) {
  const auto [name, per_rank] = GetParam();
  Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed";
  if (!unavailable_->empty()) GTEST_SKIP() << *unavailable_;
  ASSERT_TRUE(fs::exists(kSsh)) << "the hosts have no sshd: install openssh-server (tools/install-test-dependencies.sh)";
  // Through ssh: the daemons on the hosts are started out of collect's
  // reach, with nothing of the launcher's environment.
  mpi.launcher_options = across_hosts(name, kSsh);
  const JobSpec spec = four_ranks_on_two_hosts(per_rank);
  const auto started = std::chrono::steady_clock::now();
  const Job job = run_job(mpi, spec);
  const double job_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string what = name + (per_rank ? ", collect per rank" : ", collect around the launcher");
  ASSERT_EQ(job.run.exit_code, 0) << what << "\n" << job.run.err;
  for (int rank = 0; rank < spec.ranks; ++rank)
    ASSERT_FALSE(job.truth[rank].is_null()) << what << ": rank " << rank << " wrote no truth";
  expect_per_function(job.experiment, job.truth, what);
  expect_per_rank(job.experiment, job.truth, what);
  expect_messages(job.experiment, job.truth, what);
  expect_timeline(job.experiment, job.truth, what);
  // On one clock every call lies within the job's run (the second host's
  // an hour later otherwise).
  const json timeline = er_print_json({"-mpi_timeline"}, job.experiment);
  for (const json& row : table_titled(timeline, "MPI calls in time (peer -1: none, or several)").at("rows")) {
    const json& v = row.at("values");
    EXPECT_LE(v.at("start").get<double>() + v.at("duration").get<double>(), job_seconds) << what << ": " << row.dump();
  }
  expect_per_host(job.experiment, job.truth, what);
  // Ranks 0 and 1 ran on the first host, 2 and 3 on the second: each
  // rank's row names the host its process found itself on.
  const json ranks = table_titled(er_print_json({"-mpi_ranks"}, job.experiment), "MPI ranks");
  ASSERT_EQ(ranks.at("rows").size(), 4u) << what << ranks.dump();
  for (const json& row : ranks.at("rows")) {
    const std::string label = row.at("name");
    const bool first = label.rfind("rank 0 ", 0) == 0 || label.rfind("rank 1 ", 0) == 0;
    EXPECT_NE(label.find(first ? " on lumen-h1 " : " on lumen-h2 "), std::string::npos) << what << ": " << label;
  }
}

// What each rank of a job counted (rankN.json in `dir`); null where a rank wrote none.
std::vector<json> truth_of_ranks(const TempDir& dir, int ranks) {
  std::vector<json> truth(static_cast<size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank)
    if (std::ifstream in(dir.path() / ("rank" + std::to_string(rank) + ".json")); in) truth[rank] = json::parse(in);
  return truth;
}

// er_cp gathers ranks 2 and 3 (the second host's) of `from` into `into`, and says so.
void expect_second_hosts_ranks_gathered(const fs::path& from, const fs::path& into) {
  const ProcessResult gathered = run_process({(bin_dir() / "er_cp").string(), from.string(), into.string()});
  ASSERT_EQ(gathered.exit_code, 0) << gathered.err;
  EXPECT_NE(gathered.out.find("gathered 2 ranks of " + from.string() + " into " + into.string() + ": _rank2.er _rank3.er"),
            std::string::npos)
      << gathered.out;
}

// The MPI views name the ranks of the job (its world size) that left no
// data in `experiment`, and count them.
void expect_unrecorded_ranks(const fs::path& experiment, const std::vector<std::string>& ranks, const std::string& what) {
  for (const char* view : {"-mpi_stats", "-mpi_ranks", "-mpi_messages", "-mpi_hosts"}) {
    const json shown = er_print_json({view}, experiment);
    EXPECT_EQ(shown.at("summary").at("unrecorded_ranks").get<double>(), static_cast<double>(ranks.size()))
        << what << " " << view;
    std::vector<std::string> named;
    for (const json& table : shown.at("tables"))
      if (table.at("title").get<std::string>().rfind("Ranks of the job that recorded nothing here", 0) == 0)
        for (const json& row : table.at("rows")) named.push_back(row.at("name"));
    EXPECT_EQ(named, ranks) << what << " " << view;
  }
}

// Collect around the launcher with the experiment on node-local scratch:
// ranks 0 and 1 run beside the launcher and record into its founder;
// ranks 2 and 3, on another host reached over ssh, find no founder there
// and found the job's on that host's scratch. Until it is gathered, every
// MPI view of the launcher's founder names ranks 2 and 3 as missing rather
// than passing for the whole job; er_cp gathers them by the job's key,
// after which every rank's figures equal its truth.
TEST_P(MpiNodeLocal, AroundTheLauncherEachHostFoundsTheJobAndErCpGathersIt) {
  const std::string name = GetParam();
  Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed";
  if (!unavailable_->empty()) GTEST_SKIP() << *unavailable_;
  ASSERT_TRUE(fs::exists(kSsh)) << "the hosts have no sshd: install openssh-server (tools/install-test-dependencies.sh)";
  const TempDir truth_dir;
  const std::string founder = "/tmp/lumen-test-scratch/around-" + name + ".er";
  std::vector<std::string> argv{kHosts, "launch", (bin_dir() / "collect").string(), "--profile", "mpi", "-o", founder,
                                "--", mpi.launcher};
  for (const std::string& option : across_hosts(name, kSsh, "10.77.0.1:2,10.77.0.3:2")) argv.push_back(option);
  argv.insert(argv.end(), {"-np", "4", mpi.target("mpi_exchange_target"), truth_dir.path().string()});
  fs::remove_all(founder);
  struct RemovedAtEnd {
    fs::path path;
    ~RemovedAtEnd() { std::error_code ignored; fs::remove_all(path, ignored); }
  } removed{founder};
  const ProcessResult run = run_process(argv);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The launcher's host has this machine's scratch; the second host its own.
  const fs::path here = founder, there = "/tmp/lumen-test-hosts/lumen-h2/around-" + name + ".er";
  ASSERT_TRUE(fs::is_directory(here / "_rank1.er")) << run.err;
  EXPECT_FALSE(fs::exists(here / "_rank2.er"));
  ASSERT_TRUE(fs::is_directory(there / "_rank2.er") && fs::is_directory(there / "_rank3.er")) << run.err;
  expect_unrecorded_ranks(here, {"rank 2", "rank 3"}, name + ", before gathering");

  expect_second_hosts_ranks_gathered(there, here);
  const std::vector<json> truth = truth_of_ranks(truth_dir, 4);
  for (int rank = 0; rank < 4; ++rank) ASSERT_FALSE(truth[rank].is_null()) << "rank " << rank << " wrote no truth";
  const std::string what = name + ", collect around the launcher, node-local founders gathered";
  expect_unrecorded_ranks(here, {}, what);
  expect_per_function(here, truth, what);
  expect_per_rank(here, truth, what);
  expect_messages(here, truth, what);
  // The launcher's founder is still the mpirun's experiment.
  const json founder_header = er_print_json({"-header"}, here).at("experiments").at(0);
  EXPECT_EQ(founder_header.value("exit_code", -1), 0) << founder_header.dump();
}

// Node-local directories: the launcher runs collect per rank with -d on
// each host's own scratch directory (the same path, a different directory
// on each host), so each host holds a founder of the job with its own
// ranks; er_print names the ranks one lacks, and er_cp gathers the other
// host's into it, after which every rank's figures are there.
TEST_P(MpiNodeLocal, FoundersOfEachHostAreGatheredByErCp) {
  const std::string name = GetParam();
  Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed";
  if (!unavailable_->empty()) GTEST_SKIP() << *unavailable_;
  const TempDir truth_dir;
  std::vector<std::string> argv{kHosts, "launch", mpi.launcher};
  for (const std::string& option : across_hosts(name)) argv.push_back(option);
  // Named for the implementation: each host's scratch outlives a test.
  const std::string founder = "run-" + name + ".er";
  argv.insert(argv.end(), {"-np", "4", (bin_dir() / "collect").string(), "-o", founder, "-d",
                           "/tmp/lumen-test-scratch", "--profile", "mpi", mpi.target("mpi_exchange_target"),
                           truth_dir.path().string()});
  const ProcessResult run = run_process(argv);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const fs::path first = "/tmp/lumen-test-hosts/lumen-h1/" + founder, second = "/tmp/lumen-test-hosts/lumen-h2/" + founder;
  ASSERT_TRUE(fs::exists(first / "_rank1.er")) << run.err;
  ASSERT_TRUE(fs::exists(second / "_rank2.er")) << run.err;
  EXPECT_FALSE(fs::exists(first / "_rank2.er"));
  const ProcessResult partial = run_process({(bin_dir() / "er_print").string(), "-mpi_ranks", first.string()});
  EXPECT_NE(partial.err.find("the job had 4 ranks, but rank 2, 3 recorded no experiment here"), std::string::npos)
      << partial.err;
  expect_unrecorded_ranks(first, {"rank 2", "rank 3"}, name + ", one host's founder");

  expect_second_hosts_ranks_gathered(second, first);
  const std::vector<json> truth = truth_of_ranks(truth_dir, 4);
  for (int rank = 0; rank < 4; ++rank) ASSERT_FALSE(truth[rank].is_null()) << "rank " << rank << " wrote no truth";
  const std::string what = name + ", node-local founders gathered";
  expect_per_function(first, truth, what);
  expect_per_rank(first, truth, what);
  expect_messages(first, truth, what);
  const ProcessResult complete = run_process({(bin_dir() / "er_print").string(), "-mpi_ranks", first.string()});
  EXPECT_EQ(complete.err.find("recorded no experiment here"), std::string::npos) << complete.err;
  expect_unrecorded_ranks(first, {}, what);
  // Gathered twice: refused, nothing copied.
  const ProcessResult again = run_process({(bin_dir() / "er_cp").string(), second.string(), first.string()});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("_rank2.er is in both"), std::string::npos) << again.err;
}

// What one rank measured of its clock (-mpi_timeline's last table), in seconds.
struct MeasuredClock {
  std::string name;
  double offset_init, error_init, offset_finalize, error_finalize, between, drift_ppm;
  double error() const { return std::max(error_init, error_finalize); }
};

std::map<int, MeasuredClock> measured_clocks(const json& timeline) {
  std::map<int, MeasuredClock> clocks;
  const json& table = table_titled(timeline, "Clocks of the ranks, placed on rank 0's (offset: what rank 0 read more; "
                                             "error: half the quickest round trip)");
  for (const json& row : table.at("rows")) {
    const json& v = row.at("values");
    const auto value = [&](const char* column) { return v.at(column).get<double>(); };
    clocks[static_cast<int>(value("rank"))] = {row.at("name").get<std::string>(), value("offset_init"),
                                               value("error_init_us") / 1e6,      value("offset_finalize"),
                                               value("error_finalize_us") / 1e6,  value("between"),
                                               value("drift_ppm")};
  }
  return clocks;
}

// The collector's clock on the second host reads 1.5 s ahead and runs
// 2000 millionths fast (LUMEN_TEST_CLOCK_SKEW: every process there, as
// its own clock would). Each rank measured its clock against rank 0's at
// MPI_Init and MPI_Finalize: a token went round the ranks 40 times, and
// on the job's clock each of its 160 messages is received after its send
// began, give or take the two ranks' recorded errors (messages cross both
// ways, rank 1 to 2 and 3 to 0: a misplacement either way is bounded by
// the quickest message); and the drift measured on the second host is the
// skew's, within the two runs' errors.
TEST_P(MpiClockAlignment, SkewedHostsMessagesAreReceivedAfterTheyWereSent) {
  const auto [name, per_rank] = GetParam();
  Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed";
  if (!unavailable_->empty()) GTEST_SKIP() << *unavailable_;
  mpi.launcher_options = across_hosts(name);
  JobSpec spec = four_ranks_on_two_hosts(per_rank);
  spec.program = "mpi_clock_target";
  spec.truth_prefix = "clock";
  const std::string what = name + (per_rank ? ", collect per rank" : ", collect around the launcher");
  const Job plain = run_job(mpi, spec);
  ASSERT_EQ(plain.run.exit_code, 0) << what << "\n" << plain.run.err;
  constexpr double kSkewedPpm = 2000;
  spec.env["LUMEN_TEST_CLOCK_SKEW"] = "lumen-h2:1500000000:2000";
  const Job skewed = run_job(mpi, spec);
  ASSERT_EQ(skewed.run.exit_code, 0) << what << "\n" << skewed.run.err;
  for (int rank = 0; rank < spec.ranks; ++rank)
    ASSERT_EQ(skewed.truth[rank].value("received", -1), 40) << what << ": rank " << rank;

  const json plain_timeline = er_print_json({"-mpi_timeline"}, plain.experiment);
  const json timeline = er_print_json({"-mpi_timeline"}, skewed.experiment);
  EXPECT_EQ(timeline.at("summary").at("messages").get<double>(), 160) << what;
  const auto plain_clocks = measured_clocks(plain_timeline), clocks = measured_clocks(timeline);
  ASSERT_EQ(clocks.size(), 4u) << what << timeline.dump();
  ASSERT_EQ(plain_clocks.size(), 4u) << what << plain_timeline.dump();
  for (const auto& [rank, clock] : clocks) {
    if (rank < 2) {  // rank 0's host: nothing measured
      EXPECT_NE(clock.name.find("(rank 0's clock)"), std::string::npos) << what << ": " << clock.name;
      EXPECT_EQ(clock.error(), 0) << what << ": " << clock.name;
      continue;
    }
    // Measured: a round trip over TCP (Open MPI) or shared memory (MPICH
    // sees one machine), tens of microseconds or less than one.
    EXPECT_EQ(clock.name, "rank " + std::to_string(rank) + " on lumen-h2") << what;
    EXPECT_LT(clock.error(), 0.05) << what << ": " << clock.name;
    // Ahead by the skew (and the clock's reading since boot times the drift).
    EXPECT_LT(clock.offset_init - plain_clocks.at(rank).offset_init, -1.5 + clock.error() + plain_clocks.at(rank).error())
        << what << ": " << clock.name;
    const MeasuredClock& before = plain_clocks.at(rank);
    const double resolution_ppm = (clock.error_init + clock.error_finalize) / clock.between * 1e6 +
                                  (before.error_init + before.error_finalize) / before.between * 1e6;
    EXPECT_NEAR(clock.drift_ppm - before.drift_ppm, -kSkewedPpm / (1 + kSkewedPpm / 1e6), resolution_ppm + 1)
        << what << ": " << clock.name;
  }
  // Each rank sends only with MPI_Send, to the next: its k-th message is
  // its k-th MPI_Send, which began before the message could be received.
  std::map<int, std::vector<double>> send_starts;  // rank -> its MPI_Send calls' starts, in order
  for (const json& row : table_titled(timeline, "MPI calls in time (peer -1: none, or several)").at("rows"))
    if (row.at("name") == "MPI_Send")
      send_starts[static_cast<int>(row.at("values").at("rank").get<double>())].push_back(
          row.at("values").at("start").get<double>());
  std::map<int, std::vector<json>> sent_by;  // rank -> its messages, by the send's return
  for (const json& row : table_titled(timeline, "Messages from the send's return to the receive's completion (each "
                                                "call's return)")
                             .at("rows"))
    sent_by[static_cast<int>(row.at("values").at("sender").get<double>())].push_back(row.at("values"));
  for (auto& [sender, messages] : sent_by) {
    std::vector<double>& starts = send_starts[sender];
    std::sort(starts.begin(), starts.end());
    std::stable_sort(messages.begin(), messages.end(),
                     [](const json& a, const json& b) { return a.at("sent").get<double>() < b.at("sent").get<double>(); });
    ASSERT_EQ(starts.size(), messages.size()) << what << ": rank " << sender;
    for (size_t k = 0; k < messages.size(); ++k) {
      const json& v = messages[k];
      // The two ranks' errors, and 2 us for each process's time stamps,
      // which follow CLOCK_MONOTONIC within some tens of nanoseconds
      // (tsc_clock.h).
      const double allowed = clocks.at(sender).error() +
                             clocks.at(static_cast<int>(v.at("receiver").get<double>())).error() + 2e-6;
      EXPECT_GE(v.at("received").get<double>() - starts[k], -allowed) << what << ": " << v.dump();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Launchers, MpiClockAlignment,
                         testing::Combine(testing::Values("openmpi", "mpich"), testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_collect_per_rank"
                                                                                     : "_collect_around_launcher");
                         });

// The last rank (on the second host) calls MPI_Abort once the others have
// written their account; they, blocked in a receive, are killed by the
// launcher. Every rank's data up to then is kept, whichever host it ran
// on, and -exp_list says how each rank's process ended.
TEST_P(MpiRankKilled, OthersDataIsKeptAndEachRanksEndingIsSaid) {
  const std::string name = GetParam();
  Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed";
  if (!unavailable_->empty()) GTEST_SKIP() << *unavailable_;
  mpi.launcher_options = across_hosts(name);
  JobSpec spec = four_ranks_on_two_hosts(false);
  spec.target_args = {"abort"};
  const Job job = run_job(mpi, spec);
  const std::string what = name + ", rank 3 aborting on the second host";
  EXPECT_NE(job.run.exit_code, 0) << what << ": the job aborted";
  for (int rank = 0; rank < 4; ++rank) ASSERT_FALSE(job.truth[rank].is_null()) << what << ": rank " << rank;
  expect_per_function(job.experiment, job.truth, what);
  expect_per_rank(job.experiment, job.truth, what);
  std::map<std::string, std::string> endings;  // lineage -> ending
  const json listed = er_print_json({"-exp_list"}, job.experiment);
  for (const json& e : listed.at("experiments"))
    endings[e.at("lineage").get<std::string>()] = e.at("ending").get<std::string>();
  for (int rank = 0; rank < 4; ++rank) {
    const std::string lineage = "_rank" + std::to_string(rank);
    ASSERT_TRUE(endings.count(lineage)) << what << ": no experiment of " << lineage;
    const std::string& ending = endings[lineage];
    EXPECT_TRUE(ending.rfind("exit ", 0) == 0 || ending.rfind("killed by SIG", 0) == 0)
        << what << ": " << lineage << " ended '" << ending << "'";
  }
  EXPECT_NE(endings["_rank3"], "exit 0") << what << ": rank 3 aborted";
}

// The helper itself: hosts made and removed leave this machine's own
// network as it was (every interface is in the hosts' namespaces), and no
// namespace, mount or scratch directory behind; a create refused leaves
// nothing either.
TEST(TestHosts, RemoveLeavesThisMachineAsItWas) {
  const auto namespaces = [] { return run_process({"ip", "netns", "list"}).out; };
  const auto interfaces = [] { return run_process({"ip", "-o", "link", "show"}).out.size(); };
  const auto lumen_namespaces = [](const std::string& list) {
    return list.find("lumen-h") != std::string::npos || list.find("lumen-net") != std::string::npos;
  };
  run_process({kHosts, "remove"});
  ASSERT_FALSE(lumen_namespaces(namespaces()));
  const size_t links_before = interfaces();
  const ProcessResult made = run_process({kHosts, "create", "2"});
  if (made.exit_code != 0) GTEST_SKIP() << "the hosts could not be made here: " << made.err;
  const std::string listed = namespaces();
  for (const char* name : {"lumen-net", "lumen-h0", "lumen-h1", "lumen-h2"})
    EXPECT_NE(listed.find(name), std::string::npos) << name << " in " << listed;
  EXPECT_EQ(interfaces(), links_before) << "an interface was added to this machine's own network";
  EXPECT_TRUE(fs::is_directory("/tmp/lumen-test-hosts/lumen-h2"));
  ASSERT_EQ(run_process({kHosts, "remove"}).exit_code, 0);
  EXPECT_FALSE(lumen_namespaces(namespaces())) << namespaces();
  EXPECT_EQ(interfaces(), links_before);
  EXPECT_FALSE(fs::exists("/tmp/lumen-test-hosts"));
  EXPECT_FALSE(fs::exists("/tmp/lumen-test-scratch"));

  const ProcessResult refused = run_process({kHosts, "create", "two"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("create takes 1 to 200 hosts"), std::string::npos) << refused.err;
  EXPECT_FALSE(lumen_namespaces(namespaces())) << namespaces();
}

INSTANTIATE_TEST_SUITE_P(Launchers, MpiRankKilled, testing::Values("openmpi", "mpich"));

INSTANTIATE_TEST_SUITE_P(Launchers, MpiNodeLocal, testing::Values("openmpi", "mpich"));

INSTANTIATE_TEST_SUITE_P(Launchers, MpiAcrossHosts,
                         testing::Combine(testing::Values("openmpi", "mpich"), testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_collect_per_rank"
                                                                                     : "_collect_around_launcher");
                         });

}  // namespace
}  // namespace lumen::test
