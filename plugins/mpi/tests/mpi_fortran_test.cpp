// Fortran MPI end to end: mpi_exchange_target.F90, built with each
// installed implementation's mpif90 once per binding (mpif.h, use mpi,
// use mpi_f08), runs under `collect --profile mpi -- mpirun -np N`. Every
// rank counts its own calls, messages and bytes, and er_print's figures
// must equal them exactly; and they must equal the figures of the same
// program in C (mpi_exchange_target.c) run the same way.
#include <gtest/gtest.h>

#include "mpi_expectations.h"
#include "mpi_jobs.h"

namespace lumen::test {
namespace {

using nlohmann::json;

bool fortran_built(const std::string& implementation) {
#if defined(LUMEN_MPIF90_openmpi)
  if (implementation == "openmpi") return true;
#endif
#if defined(LUMEN_MPIF90_mpich)
  if (implementation == "mpich") return true;
#endif
  return false;
}

// -mpi_stats rows by function, -mpi_ranks rows by rank and -mpi_messages
// rows by pair, of one job.
struct Figures {
  std::map<std::string, json> functions;
  std::map<std::string, json> ranks;
  std::map<std::string, json> sent;
  std::map<std::string, json> received;
};

Figures figures_of(const Job& job) {
  Figures f;
  f.functions = rows_by_name(table_titled(er_print_json({"-mpi_stats"}, job.experiment), "MPI functions"));
  f.ranks = rows_by_name(table_titled(er_print_json({"-mpi_ranks"}, job.experiment), "MPI ranks"));
  const json messages = er_print_json({"-mpi_messages"}, job.experiment);
  f.sent = rows_by_name(table_titled(messages, "Messages sent by sender and receiver"));
  f.received = rows_by_name(table_titled(messages, "Messages received by sender and receiver"));
  return f;
}

// A rank's row is "rank R on HOST (LIBRARY)": the part before the host.
std::map<std::string, json> by_rank(const std::map<std::string, json>& rows) {
  std::map<std::string, json> ranks;
  for (const auto& [name, row] : rows) ranks[name.substr(0, name.find(" on "))] = row;
  return ranks;
}

class FortranJob : public testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(FortranJob, FiguresEqualWhatEachRankDidAndTheSameProgramInC) {
  const auto [name, binding] = GetParam();
  const Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed (no mpirun." << name << ")";
  if (!fortran_built(name)) GTEST_SKIP() << "no mpif90." << name;
  constexpr int kRanks = 2;
  JobSpec spec;
  spec.ranks = kRanks;
  spec.program = "mpi_exchange_target_" + binding;
  const Job fortran = run_job(mpi, spec);
  ASSERT_EQ(fortran.run.exit_code, 0) << fortran.run.err;
  const std::string what = name + " Fortran (" + binding + ")";
  for (int rank = 0; rank < kRanks; ++rank)
    ASSERT_FALSE(fortran.truth[rank].is_null()) << what << ": rank " << rank << " wrote no truth";
  expect_per_function(fortran.experiment, fortran.truth, what);
  expect_per_rank(fortran.experiment, fortran.truth, what);
  expect_messages(fortran.experiment, fortran.truth, what);
  const json stats = er_print_json({"-mpi_stats"}, fortran.experiment);
  EXPECT_EQ(stats.at("summary").at("silent_processes").get<double>(), 0.0) << what << ": " << stats.dump();

  // Each call is attributed to the Fortran procedure that made it.
  const auto functions = rows_by_name(er_print_json({"-metrics", "e.mpisend:i.mpisend:name", "-functions"},
                                                    fortran.experiment));
  double persistent_sends = -1;
  for (const auto& [function, row] : functions)
    if (function.find("persistent_phase") != std::string::npos) persistent_sends = row.at("i.mpisend").get<double>();
  EXPECT_EQ(persistent_sends, 3.0 * kRanks) << what << ": three Startall sends per rank under persistent_phase";

  // The same program in C: the same figures, but for how often MPI_Test
  // polled before its receive completed.
  JobSpec c_spec;
  c_spec.ranks = kRanks;
  const Job c = run_job(mpi, c_spec);
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const Figures from_fortran = figures_of(fortran);
  const Figures from_c = figures_of(c);
  ASSERT_EQ(from_fortran.functions.size(), from_c.functions.size()) << what;
  for (const auto& [function, row] : from_c.functions) {
    ASSERT_TRUE(from_fortran.functions.count(function)) << what << ": no " << function;
    for (const char* column : {"calls", "mpisend", "mpibytessent", "mpireceive", "mpibytesrecv", "mpiother"}) {
      if (function == "MPI_Test" && (std::string(column) == "calls" || std::string(column) == "mpiother")) continue;
      EXPECT_EQ(from_fortran.functions.at(function).at(column), row.at(column)) << what << ": " << function << " " << column;
    }
  }
  const auto fortran_ranks = by_rank(from_fortran.ranks), c_ranks = by_rank(from_c.ranks);
  ASSERT_EQ(fortran_ranks.size(), c_ranks.size()) << what;
  for (const auto& [rank, row] : c_ranks) {
    ASSERT_TRUE(fortran_ranks.count(rank)) << what << ": no " << rank;
    for (const char* column : {"mpisend", "mpibytessent", "mpireceive", "mpibytesrecv"})
      EXPECT_EQ(fortran_ranks.at(rank).at(column), row.at(column))
          << what << ": " << rank << " " << column;
  }
  EXPECT_EQ(from_fortran.sent, from_c.sent) << what << ": messages sent by sender and receiver";
  EXPECT_EQ(from_fortran.received, from_c.received) << what << ": messages received by sender and receiver";
}

INSTANTIATE_TEST_SUITE_P(Bindings, FortranJob,
                         testing::Combine(testing::Values("openmpi", "mpich"),
                                          testing::Values("mpifh", "usempi", "f08")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

}  // namespace
}  // namespace lumen::test
