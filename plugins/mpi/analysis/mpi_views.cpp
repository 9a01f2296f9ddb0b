// er_print's MPI views, built from the records of every experiment loaded
// (the founder and its ranks' sub-experiments), as mpi_reading.h reads them:
//   -mpi_stats     per MPI function: calls, time, messages and bytes
//   -mpi_messages  the sender x receiver matrix of messages and bytes sent
//   -mpi_ranks     per rank: host, MPI library, calls, time, messages, bytes
//   -mpi_hosts     the same per host, and the messages between hosts
//   -mpi_timeline  each call and matched message in time (mpi_timeline.cpp)
// Each view counts what er_print's selection holds (-rank_select,
// -host_select, -thread_select, time filters).
#include <lumen/analysis_plugin.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "mpi_analysis.h"
#include "mpi_message_sizes.h"
#include "mpi_reading.h"

namespace lumen::mpi {
namespace {

// The ranks of the job, by the world size its ranks recorded, that left no
// MPI data at all: not collected (a host where the experiment's directory
// could not be reached, a rank not run under collect). Whatever the
// selection: it leaves out figures, not ranks' processes.
std::vector<int32_t> unrecorded_ranks(const Aggregate& a) {
  int32_t world = 0;
  for (const auto& [rank, info] : a.names) world = std::max(world, info.world_size);
  std::vector<int32_t> missing;
  for (int32_t rank = 0; rank < std::min(world, int32_t{1} << 20); ++rank)
    if (!a.names.count(rank)) missing.push_back(rank);
  return missing;
}

void common_summaries(const lumen_view_host* host, const Aggregate& a) {
  int64_t ranks = 0;
  for (const auto& [rank, info] : a.ranks) ranks += rank >= 0 ? 1 : 0;
  host->summary(host->context, "ranks", "Ranks", static_cast<double>(ranks), LUMEN_UNIT_COUNT);
  host->summary(host->context, "unrecorded_ranks", "Ranks of the job that recorded nothing here",
                static_cast<double>(unrecorded_ranks(a).size()), LUMEN_UNIT_COUNT);
  host->summary(host->context, "incomplete_traces", "Incomplete traces (VT_MAX_FLUSHES reached)",
                static_cast<double>(a.incomplete), LUMEN_UNIT_COUNT);
  host->summary(host->context, "silent_processes", "Processes traced that recorded no MPI call",
                static_cast<double>(a.silent.size()), LUMEN_UNIT_COUNT);
}

// Processes named one a row, each counted once (a table of who, not of how much).
void named_processes_table(const lumen_view_host* host, const char* title, const lumen_view_column& column,
                           const std::vector<std::string>& names) {
  if (names.empty()) return;
  host->table_begin(host->context, title, &column, 1);
  const double one = 1;
  for (const std::string& name : names) host->table_row(host->context, name.c_str(), &one, LUMEN_NO_STACK);
}

// A process that traced (its MPI library is the one the collector was
// built for) and recorded no call made its MPI calls past the interface
// traced, or none: said by name, so that no figure of 0 passes for a
// measurement. A rank that recorded nothing at all is said by rank, so
// that no view passes for the whole job's.
void unrecorded_and_silent_tables(const lumen_view_host* host, const Aggregate& a) {
  std::vector<std::string> unrecorded, silent;
  for (const int32_t rank : unrecorded_ranks(a)) unrecorded.push_back(rank_name(rank));
  for (const int32_t rank : a.silent)
    silent.push_back(rank < 0 ? std::string("a process the launcher gave no rank")
                              : "rank " + std::to_string(rank) + " (as launched)");
  named_processes_table(host,
                        "Ranks of the job that recorded nothing here, so their figures are missing (not run under "
                        "collect, or on a host that could not reach the experiment's directory)",
                        {"ranks", "Ranks", LUMEN_UNIT_COUNT}, unrecorded);
  named_processes_table(host,
                        "MPI tracing was on and no MPI call was recorded (the calls bypassed the MPI functions "
                        "traced, or the process made none)",
                        {"processes", "Processes", LUMEN_UNIT_COUNT}, silent);
}

const lumen_view_column kTotalsColumns[] = {
    {"calls", "Calls", LUMEN_UNIT_COUNT},
    {"mpitime", "MPI Time", LUMEN_UNIT_NANOSECONDS},
    {"mpisend", "MPI Sends", LUMEN_UNIT_COUNT},
    {"mpibytessent", "MPI Bytes Sent", LUMEN_UNIT_BYTES},
    {"mpireceive", "MPI Receives", LUMEN_UNIT_COUNT},
    {"mpibytesrecv", "MPI Bytes Received", LUMEN_UNIT_BYTES},
    {"mpiother", "Other MPI Events", LUMEN_UNIT_COUNT},
};

void totals_row(const lumen_view_host* host, const std::string& name, const Totals& t) {
  const double values[] = {static_cast<double>(t.calls),      static_cast<double>(t.time_ns),
                           static_cast<double>(t.sends),      static_cast<double>(t.bytes_sent),
                           static_cast<double>(t.receives),   static_cast<double>(t.bytes_received),
                           static_cast<double>(t.other)};
  host->table_row(host->context, name.c_str(), values, LUMEN_NO_STACK);
}

int run_stats(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    Aggregate own;
    const Aggregate* read = shared_aggregate(host, own, error, error_size);
    if (read == nullptr) return 1;
    const Aggregate& a = *read;
    common_summaries(host, a);
    host->summary(host->context, "calls", "MPI calls", static_cast<double>(a.all.calls), LUMEN_UNIT_COUNT);
    host->summary(host->context, "mpitime", "MPI Time", static_cast<double>(a.all.time_ns), LUMEN_UNIT_NANOSECONDS);
    std::vector<std::pair<uint16_t, Totals>> rows(a.functions.begin(), a.functions.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.second.time_ns > y.second.time_ns; });
    if (host->row_limit != 0 && rows.size() > host->row_limit) rows.resize(host->row_limit);
    host->table_begin(host->context, "MPI functions", kTotalsColumns, std::size(kTotalsColumns));
    for (const auto& [function, totals] : rows) totals_row(host, function_name(function), totals);
    unrecorded_and_silent_tables(host, a);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

int run_ranks(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    Aggregate own;
    const Aggregate* read = shared_aggregate(host, own, error, error_size);
    if (read == nullptr) return 1;
    const Aggregate& a = *read;
    common_summaries(host, a);
    host->table_begin(host->context, "MPI ranks", kTotalsColumns, std::size(kTotalsColumns));
    for (const auto& [rank, info] : a.ranks) {
      std::string name = rank_name(rank);
      if (!info.host.empty()) name += " on " + info.host;
      if (!info.library.empty()) name += " (" + info.library + ")";
      totals_row(host, name, info.totals);
    }
    unrecorded_and_silent_tables(host, a);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

// One table of (sender, receiver) pairs, and one matrix per figure with a
// row per sender and a column per receiver.
void message_tables(const lumen_view_host* host, const char* what,
                    const std::map<std::pair<int32_t, int32_t>, MessageTotals>& pairs) {
  const lumen_view_column pair_columns[] = {
      {"messages", "Messages", LUMEN_UNIT_COUNT},
      {"bytes", "Bytes", LUMEN_UNIT_BYTES},
  };
  host->table_begin(host->context, (std::string("Messages ") + what + " by sender and receiver").c_str(), pair_columns, 2);
  for (const auto& [pair, totals] : pairs) {
    const double values[] = {static_cast<double>(totals.count), static_cast<double>(totals.bytes)};
    host->table_row(host->context, (rank_name(pair.first) + " -> " + rank_name(pair.second)).c_str(), values,
                    LUMEN_NO_STACK);
  }
  std::set<int32_t> receivers;
  std::set<int32_t> senders;
  for (const auto& [pair, totals] : pairs) {
    senders.insert(pair.first);
    receivers.insert(pair.second);
  }
  std::vector<std::string> keys, titles;
  for (const int32_t r : receivers) {
    keys.push_back(r < 0 ? std::string("to_unknown") : "to_" + std::to_string(r));
    titles.push_back("to " + rank_name(r));
  }
  std::vector<lumen_view_column> columns;
  for (const bool bytes : {false, true}) {
    columns.clear();
    for (size_t i = 0; i < keys.size(); ++i)
      columns.push_back({keys[i].c_str(), titles[i].c_str(), bytes ? LUMEN_UNIT_BYTES : LUMEN_UNIT_COUNT});
    const std::string title = std::string(bytes ? "Bytes " : "Messages ") + what + ": sender (row) x receiver (column)";
    host->table_begin(host->context, title.c_str(), columns.data(), columns.size());
    for (const int32_t s : senders) {
      std::vector<double> values;
      for (const int32_t r : receivers) {
        const auto it = pairs.find({s, r});
        values.push_back(it == pairs.end() ? 0.0 : static_cast<double>(bytes ? it->second.bytes : it->second.count));
      }
      host->table_row(host->context, ("from " + rank_name(s)).c_str(), values.data(), LUMEN_NO_STACK);
    }
  }
}

// The messages sent, by size class.
void size_table(const lumen_view_host* host, const std::map<int, MessageTotals>& by_size) {
  const lumen_view_column columns[] = {
      {"messages", "Messages", LUMEN_UNIT_COUNT},
      {"bytes", "Bytes", LUMEN_UNIT_BYTES},
  };
  host->table_begin(host->context, "Messages sent by size", columns, std::size(columns));
  for (const auto& [k, totals] : by_size) {
    const double values[] = {static_cast<double>(totals.count), static_cast<double>(totals.bytes)};
    host->table_row(host->context, size_class_name(k).c_str(), values, LUMEN_NO_STACK);
  }
}

int run_messages(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    Aggregate own;
    const Aggregate* read = shared_aggregate(host, own, error, error_size);
    if (read == nullptr) return 1;
    const Aggregate& a = *read;
    common_summaries(host, a);
    int64_t count = 0, bytes = 0;
    for (const auto& [pair, totals] : a.sent) {
      count += totals.count;
      bytes = lumen_saturating_add(bytes, totals.bytes);
    }
    host->summary(host->context, "messages_sent", "Messages sent", static_cast<double>(count), LUMEN_UNIT_COUNT);
    host->summary(host->context, "bytes_sent", "Bytes sent", static_cast<double>(bytes), LUMEN_UNIT_BYTES);
    message_tables(host, "sent", a.sent);
    message_tables(host, "received", a.received);
    size_table(host, a.sent_by_size);
    unrecorded_and_silent_tables(host, a);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

// The ranks of each host together: what a job across hosts did on each,
// and what crossed between them.
int run_hosts(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    Aggregate own;
    const Aggregate* read = shared_aggregate(host, own, error, error_size);
    if (read == nullptr) return 1;
    const Aggregate& a = *read;
    common_summaries(host, a);
    const auto host_of = [&](int32_t rank) {
      const auto named = a.names.find(rank);
      return named == a.names.end() || named->second.host.empty() ? std::string("<unknown host>")
                                                                  : named->second.host;
    };
    std::map<std::string, std::pair<Totals, std::string>> hosts;  // host -> (totals, its ranks)
    for (const auto& [rank, info] : a.ranks) {
      auto& [totals, ranks] = hosts[host_of(rank)];
      totals.add(info.totals);
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(rank);
    }
    host->summary(host->context, "hosts", "Hosts", static_cast<double>(hosts.size()), LUMEN_UNIT_COUNT);
    host->table_begin(host->context, "MPI hosts", kTotalsColumns, std::size(kTotalsColumns));
    for (const auto& [name, totals] : hosts)
      totals_row(host, name + " (rank" + (totals.second.find(',') == std::string::npos ? " " : "s ") + totals.second + ")",
                 totals.first);
    std::map<std::pair<std::string, std::string>, MessageTotals> sent;
    for (const auto& [pair, totals] : a.sent) {
      MessageTotals& into = sent[{host_of(pair.first), host_of(pair.second)}];
      into.count += totals.count;
      into.bytes = lumen_saturating_add(into.bytes, totals.bytes);
    }
    const lumen_view_column pair_columns[] = {
        {"messages", "Messages", LUMEN_UNIT_COUNT},
        {"bytes", "Bytes", LUMEN_UNIT_BYTES},
    };
    host->table_begin(host->context, "Messages sent by sender host and receiver host", pair_columns, 2);
    for (const auto& [pair, totals] : sent) {
      const double values[] = {static_cast<double>(totals.count), static_cast<double>(totals.bytes)};
      host->table_row(host->context, (pair.first + " -> " + pair.second).c_str(), values, LUMEN_NO_STACK);
    }
    unrecorded_and_silent_tables(host, a);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

}  // namespace

const lumen_view_def kMpiViews[] = {
    {"mpi_stats", "per MPI function: calls, MPI time, point-to-point messages and bytes, over all ranks", run_stats},
    {"mpi_messages", "point-to-point messages and bytes by sender and receiver rank (sent, and received)",
     run_messages},
    {"mpi_ranks", "per MPI rank: host, MPI library, calls, MPI time, messages and bytes", run_ranks},
    {"mpi_hosts", "per host: its ranks' calls, MPI time, messages and bytes; messages and bytes between hosts",
     run_hosts},
    {"mpi_timeline", "each rank's MPI calls in time, and each message from its send to its receive", run_timeline},
};
const size_t kMpiViewCount = std::size(kMpiViews);

}  // namespace lumen::mpi
