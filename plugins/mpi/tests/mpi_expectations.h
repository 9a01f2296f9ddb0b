// What er_print's MPI views must show for an mpi_exchange_target job: the
// figures each rank counted of itself (mpi_truth.h), exactly, summed over
// the ranks a test selects.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace lumen::test {

// The truth's figures, and the view columns that show them.
inline const char* const kFigures[] = {"calls", "sends", "bytes_sent", "receives", "bytes_received", "other"};
inline const char* const kColumns[] = {"calls", "mpisend", "mpibytessent", "mpireceive", "mpibytesrecv", "mpiother"};

// The ranks a view counts, and the er_print arguments that select them
// (e.g. {"-rank_select", "1,3"}); no ranks: all of them.
struct RankSelection {
  std::set<int> ranks;
  std::vector<std::string> args;
  bool selects(size_t rank) const { return ranks.empty() || ranks.count(static_cast<int>(rank)) != 0; }
};

// Per MPI function, summed over the selected ranks' truth (null ones skipped).
std::map<std::string, std::map<std::string, double>> truth_by_function(const std::vector<nlohmann::json>& truth,
                                                                       const RankSelection& selection = {});
// One rank's figures over all its functions.
std::map<std::string, double> totals_of(const nlohmann::json& rank);
const nlohmann::json& table_titled(const nlohmann::json& view, const std::string& title);

// -mpi_stats: the selected ranks' figures per MPI function.
void expect_per_function(const std::filesystem::path& experiment, const std::vector<nlohmann::json>& truth,
                         const std::string& what, const RankSelection& selection = {});
// -mpi_ranks: one row per selected rank, with its figures, and none other.
void expect_per_rank(const std::filesystem::path& experiment, const std::vector<nlohmann::json>& truth,
                     const std::string& what, const RankSelection& selection = {});
// -mpi_messages: messages sent by the selected ranks, and those they
// received (every message sent is received, so the senders' account
// tells both).
void expect_messages(const std::filesystem::path& experiment, const std::vector<nlohmann::json>& truth,
                     const std::string& what, const RankSelection& selection = {});

// -mpi_timeline (every rank): each rank's calls, in time order, and each
// message sent matched to its receive: as many per sender and receiver,
// with as many bytes, as the senders counted, none left unmatched.
void expect_timeline(const std::filesystem::path& experiment, const std::vector<nlohmann::json>& truth,
                     const std::string& what);

}  // namespace lumen::test
