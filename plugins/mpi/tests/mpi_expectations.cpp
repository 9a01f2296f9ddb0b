#include "mpi_expectations.h"

#include <gtest/gtest.h>

#include "lumen_commands.h"
#include "mpi_message_sizes.h"

namespace lumen::test {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::vector<std::string> with(const RankSelection& selection, const std::string& view) {
  std::vector<std::string> args = selection.args;
  args.push_back(view);
  return args;
}

// Rows of -mpi_ranks are "rank R on HOST (LIBRARY)".
std::map<int, json> rows_by_rank(const fs::path& experiment, const RankSelection& selection) {
  std::map<int, json> ranks;
  const json view = er_print_json(with(selection, "-mpi_ranks"), experiment);
  for (const json& row : table_titled(view, "MPI ranks").at("rows")) {
    const std::string name = row.at("name");
    if (name.rfind("rank ", 0) == 0) ranks[std::stoi(name.substr(5))] = row;
  }
  return ranks;
}

}  // namespace

std::map<std::string, std::map<std::string, double>> truth_by_function(const std::vector<json>& truth,
                                                                       const RankSelection& selection) {
  std::map<std::string, std::map<std::string, double>> sums;
  for (size_t rank = 0; rank < truth.size(); ++rank) {
    if (truth[rank].is_null() || !selection.selects(rank)) continue;
    for (const auto& [function, figures] : truth[rank].at("functions").items())
      for (const char* figure : kFigures) sums[function][figure] += figures.at(figure).get<double>();
  }
  return sums;
}

std::map<std::string, double> totals_of(const json& rank) {
  std::map<std::string, double> totals;
  for (const auto& [function, figures] : rank.at("functions").items())
    for (const char* figure : kFigures) totals[figure] += figures.at(figure).get<double>();
  return totals;
}

const json& table_titled(const json& view, const std::string& title) {
  for (const json& table : view.at("tables"))
    if (table.at("title") == title) return table;
  ADD_FAILURE() << "no table '" << title << "' in " << view.dump();
  static const json empty = {{"rows", json::array()}};
  return empty;
}

void expect_per_function(const fs::path& experiment, const std::vector<json>& truth, const std::string& what,
                         const RankSelection& selection) {
  const auto expected = truth_by_function(truth, selection);
  const auto rows = rows_by_name(table_titled(er_print_json(with(selection, "-mpi_stats"), experiment), "MPI functions"));
  std::set<std::string> expected_names, recorded_names;
  for (const auto& [name, figures] : expected) expected_names.insert(name);
  for (const auto& [name, values] : rows) recorded_names.insert(name);
  EXPECT_EQ(recorded_names, expected_names) << what << ": the MPI functions recorded are not those the program called";
  for (const auto& [name, figures] : expected) {
    if (!rows.count(name)) continue;
    for (size_t i = 0; i < std::size(kFigures); ++i)
      EXPECT_EQ(rows.at(name).at(kColumns[i]).get<double>(), figures.at(kFigures[i]))
          << what << ": " << name << " " << kColumns[i];
  }
}

void expect_per_rank(const fs::path& experiment, const std::vector<json>& truth, const std::string& what,
                     const RankSelection& selection) {
  const auto rows = rows_by_rank(experiment, selection);
  for (size_t rank = 0; rank < truth.size(); ++rank) {
    if (!selection.selects(rank)) {
      EXPECT_EQ(rows.count(static_cast<int>(rank)), 0u) << what << ": rank " << rank << " is not selected";
      continue;
    }
    if (truth[rank].is_null()) continue;
    ASSERT_TRUE(rows.count(static_cast<int>(rank))) << what << ": no row for rank " << rank;
    const auto totals = totals_of(truth[rank]);
    const json& row = rows.at(static_cast<int>(rank));
    for (size_t i = 0; i < std::size(kFigures); ++i)
      EXPECT_EQ(row.at("values").at(kColumns[i]).get<double>(), totals.at(kFigures[i]))
          << what << ": rank " << rank << " " << kColumns[i];
    EXPECT_NE(row.at("name").get<std::string>().find(" on "), std::string::npos) << "host of rank " << rank;
  }
}

void expect_messages(const fs::path& experiment, const std::vector<json>& truth, const std::string& what,
                     const RankSelection& selection) {
  using Pairs = std::map<std::string, std::pair<double, double>>;
  std::map<std::string, Pairs> expected;  // by direction
  for (size_t rank = 0; rank < truth.size(); ++rank)
    for (const auto& [to, figures] : truth[rank].at("sent_to").items()) {
      const std::string pair = "rank " + std::to_string(rank) + " -> rank " + to;
      const std::pair<double, double> counted{figures.at("messages").get<double>(), figures.at("bytes").get<double>()};
      if (selection.selects(rank)) expected["sent"][pair] = counted;
      if (selection.selects(std::stoul(to))) expected["received"][pair] = counted;
    }
  const json view = er_print_json(with(selection, "-mpi_messages"), experiment);
  // The selected ranks' messages by size class, from each size they sent.
  std::map<std::string, std::pair<double, double>> by_size;
  for (size_t rank = 0; rank < truth.size(); ++rank) {
    if (!selection.selects(rank)) continue;
    for (const auto& [bytes, messages] : truth[rank].at("sent_sizes").items()) {
      auto& [count, total] = by_size[mpi::size_class_name(mpi::size_class(std::stoull(bytes)))];
      count += messages.get<double>();
      total += messages.get<double>() * std::stod(bytes);
    }
  }
  const auto sized = rows_by_name(table_titled(view, "Messages sent by size"));
  EXPECT_EQ(sized.size(), by_size.size()) << what << ": size classes";
  for (const auto& [name, figures] : by_size) {
    ASSERT_TRUE(sized.count(name)) << what << ": no messages of " << name;
    EXPECT_EQ(sized.at(name).at("messages").get<double>(), figures.first) << what << " " << name;
    EXPECT_EQ(sized.at(name).at("bytes").get<double>(), figures.second) << what << " " << name;
  }
  for (const char* direction : {"sent", "received"}) {
    const auto rows = rows_by_name(table_titled(view, std::string("Messages ") + direction + " by sender and receiver"));
    EXPECT_EQ(rows.size(), expected[direction].size()) << what << ": sender/receiver pairs " << direction;
    for (const auto& [pair, figures] : expected[direction]) {
      ASSERT_TRUE(rows.count(pair)) << what << ": no messages " << direction << " " << pair;
      EXPECT_EQ(rows.at(pair).at("messages").get<double>(), figures.first) << what << " " << direction << " " << pair;
      EXPECT_EQ(rows.at(pair).at("bytes").get<double>(), figures.second) << what << " " << direction << " " << pair;
    }
  }
}

void expect_timeline(const fs::path& experiment, const std::vector<json>& truth, const std::string& what) {
  const json view = er_print_json({"-mpi_timeline"}, experiment);
  std::map<int, double> calls_of_rank;
  std::map<std::pair<int, int>, std::pair<double, double>> sent;  // (sender, receiver) -> messages, bytes
  double messages = 0;
  for (size_t rank = 0; rank < truth.size(); ++rank) {
    calls_of_rank[static_cast<int>(rank)] = totals_of(truth[rank])["calls"];
    for (const auto& [to, figures] : truth[rank].at("sent_to").items()) {
      sent[{static_cast<int>(rank), std::stoi(to)}] = {figures.at("messages").get<double>(),
                                                       figures.at("bytes").get<double>()};
      messages += figures.at("messages").get<double>();
    }
  }
  EXPECT_EQ(view.at("summary").at("messages").get<double>(), messages) << what;
  EXPECT_EQ(view.at("summary").at("unmatched_sends").get<double>(), 0) << what;
  EXPECT_EQ(view.at("summary").at("unmatched_receives").get<double>(), 0) << what;
  EXPECT_EQ(view.at("summary").at("sizes_differ").get<double>(), 0) << what;

  std::map<int, double> calls_seen;
  double previous_start = 0;
  for (const json& row : table_titled(view, "MPI calls in time (peer -1: none, or several)").at("rows")) {
    const json& v = row.at("values");
    calls_seen[static_cast<int>(v.at("rank").get<double>())] += 1;
    EXPECT_GE(v.at("start").get<double>(), previous_start) << what << ": calls in time order";
    EXPECT_GE(v.at("duration").get<double>(), 0) << what;
    previous_start = v.at("start").get<double>();
  }
  EXPECT_EQ(calls_seen, calls_of_rank) << what << ": each rank's calls";

  std::map<std::pair<int, int>, std::pair<double, double>> matched;
  const auto& rows =
      table_titled(view, "Messages from the send's return to the receive's completion (each call's return)").at("rows");
  for (const json& row : rows) {
    const json& v = row.at("values");
    auto& [count, bytes] =
        matched[{static_cast<int>(v.at("sender").get<double>()), static_cast<int>(v.at("receiver").get<double>())}];
    count += 1;
    bytes += v.at("bytes").get<double>();
  }
  EXPECT_EQ(matched, sent) << what << ": messages and bytes per sender and receiver";
}

}  // namespace lumen::test
