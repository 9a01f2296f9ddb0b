// er_print's MPI views, built from the records of every experiment loaded
// (the founder and its ranks' sub-experiments):
//   -mpi_stats     per MPI function: calls, time, messages and bytes
//   -mpi_messages  the sender x receiver matrix of messages and bytes sent
//   -mpi_ranks     per rank: host, MPI library, calls, time, messages, bytes
// A compact call record leaves its rank to the process record of its
// experiment: the records are read in parts (runs of blocks, several at
// once), each part knowing its experiment, and a part's compact calls are
// counted under kProcessRank until the parts are merged. Each view counts
// what er_print's selection holds (-rank_select, -thread_select, time
// filters): a call by its thread and the time it returned, as the function
// views count it; a message by the thread and time of the call that
// started or completed it.
#include <lumen/analysis_plugin.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../mpi_packed_call.h"
#include "mpi_analysis.h"

namespace lumen::mpi {
namespace {

struct Totals {
  int64_t calls = 0;
  int64_t time_ns = 0;
  int64_t sends = 0;
  int64_t bytes_sent = 0;
  int64_t receives = 0;
  int64_t bytes_received = 0;
  int64_t other = 0;

  void add(const MpiCall& call) {
    calls += 1;
    time_ns = lumen_saturating_add(time_ns, lumen_value_of(call.exit_ns - call.enter_ns));
    sends += call.sends;
    bytes_sent = lumen_saturating_add(bytes_sent, lumen_value_of(call.bytes_sent));
    receives += call.receives;
    bytes_received = lumen_saturating_add(bytes_received, lumen_value_of(call.bytes_received));
    other += call.sends + call.receives == 0 ? 1 : 0;
  }
  void add(const Totals& t) {
    calls += t.calls;
    time_ns = lumen_saturating_add(time_ns, t.time_ns);
    sends += t.sends;
    bytes_sent = lumen_saturating_add(bytes_sent, t.bytes_sent);
    receives += t.receives;
    bytes_received = lumen_saturating_add(bytes_received, t.bytes_received);
    other += t.other;
  }
};

struct RankInfo {
  int32_t world_size = 0;
  std::string library;
  std::string host;
  bool incomplete = false;
  Totals totals;
};

struct MessageTotals {
  int64_t count = 0;
  int64_t bytes = 0;
};

// Stands for "the rank of the experiment's process" until the parts are merged.
constexpr int32_t kProcessRank = INT32_MIN;

struct Aggregate {
  std::map<uint16_t, Totals> functions;
  std::map<int32_t, RankInfo> ranks;  // -1: calls before MPI_Init
  std::map<std::pair<int32_t, int32_t>, MessageTotals> sent;      // (sender, receiver)
  std::map<std::pair<int32_t, int32_t>, MessageTotals> received;  // (sender, receiver)
  std::map<int32_t, RankInfo> names;  // host and library of every rank, selected or not
  int64_t processes = 0;  // settings records: processes that traced
  // The launcher's rank (-1: none) of each process that traced and
  // recorded no MPI call at all, selected or not.
  std::vector<int32_t> silent;
  int64_t incomplete = 0;
  Totals all;
};

// One part's reading: its records' totals, and its experiment's rank when
// the part holds its process record.
struct Part {
  const lumen_view_host* host = nullptr;
  void* context = nullptr;  // the part's, for selected and record_failed
  size_t experiment = 0;
  Aggregate a;
  std::optional<int32_t> process_rank;
  std::optional<int32_t> traced_as;  // the launcher's rank, once the settings record says the process traced
  int64_t calls_seen = 0;  // call records, selected or not
  bool failed = false;
};

struct Reading {
  const lumen_view_host* host = nullptr;
  std::vector<std::unique_ptr<Part>> parts;
};

bool selected(const Part& p, uint64_t time_ns, uint32_t thread_id) {
  return p.host->selected(p.context, time_ns, thread_id) != 0;
}

void fail(Part& p, const std::string& problem) {
  p.failed = true;
  p.host->record_failed(p.context, problem.c_str());
}

void add_call(Part& p, const MpiCall& call) {
  if (call.exit_ns < call.enter_ns) {
    fail(p, std::string(function_name(call.function)) + " returned before it was called");
    return;
  }
  if (!selected(p, call.exit_ns, call.thread_id)) return;
  p.a.functions[call.function].add(call);
  p.a.ranks[call.rank].totals.add(call);
  p.a.all.add(call);
}

void add_message(Part& p, const MpiMessage& m, uint32_t thread_id) {
  if (!selected(p, m.time_ns, thread_id)) return;
  MessageTotals& t = m.direction == kMessageSent ? p.a.sent[{m.rank, m.peer}] : p.a.received[{m.peer, m.rank}];
  t.count += 1;
  t.bytes = lumen_saturating_add(t.bytes, lumen_value_of(m.bytes));
}

void* begin_part(void* arg, const lumen_record_part* part) {
  auto* reading = static_cast<Reading*>(arg);
  auto state = std::make_unique<Part>();
  state->host = reading->host;
  state->context = part->context;
  state->experiment = part->experiment;
  reading->parts.push_back(std::move(state));
  return reading->parts.back().get();
}

void visit_record(void* arg, uint16_t kind, const void* payload, uint16_t bytes, uint32_t block_thread) {
  Part& p = *static_cast<Part*>(arg);
  if (p.failed) return;
  try {
    if (kind == kSettingsRecord && bytes >= kSettingsBytesBefore) {
      ++p.a.processes;
      MpiSettings settings{};
      settings.launcher_rank = -1;
      std::memcpy(&settings, payload, std::min<size_t>(bytes, sizeof settings));
      p.traced_as = settings.launcher_rank;
    } else if (kind == kProcessRecord && bytes >= sizeof(MpiProcess)) {
      MpiProcess process;
      std::memcpy(&process, payload, sizeof process);
      if (sizeof process + process.library_bytes + process.host_bytes > bytes) {
        fail(p, "an MPI process record is too short for its names");
        return;
      }
      const char* text = static_cast<const char*>(payload) + sizeof process;
      if (selected(p, process.time_ns, block_thread)) p.a.ranks[process.rank];
      p.process_rank = process.rank;
      RankInfo& rank = p.a.names[process.rank];
      rank.world_size = process.world_size;
      rank.library.assign(text, process.library_bytes);
      rank.host.assign(text + process.library_bytes, process.host_bytes);
    } else if (kind == kCompactCallRecord) {
      UnpackedCall unpacked;
      const char* problem = nullptr;
      if (!unpack(payload, bytes, CallWriter{block_thread, kProcessRank}, unpacked, &problem)) {
        fail(p, problem);
        return;
      }
      ++p.calls_seen;
      add_call(p, unpacked.call);
      for (int i = 0; i < unpacked.message_count && !p.failed; ++i)
        add_message(p, unpacked.messages[i], unpacked.call.thread_id);
    } else if (kind == kCallRecord) {
      if (bytes < sizeof(MpiCall)) {
        fail(p, "an MPI call record is " + std::to_string(bytes) + " bytes, expected " + std::to_string(sizeof(MpiCall)));
        return;
      }
      MpiCall call;
      std::memcpy(&call, payload, sizeof call);
      ++p.calls_seen;
      add_call(p, call);
    } else if (kind == kMessageRecord) {
      if (bytes < sizeof(MpiMessage)) {
        fail(p, "an MPI message record is " + std::to_string(bytes) + " bytes, expected " +
                    std::to_string(sizeof(MpiMessage)));
        return;
      }
      MpiMessage m;
      std::memcpy(&m, payload, sizeof m);
      add_message(p, m, block_thread);
    } else if (kind == kIncompleteRecord && bytes >= sizeof(MpiIncomplete)) {
      MpiIncomplete incomplete;
      std::memcpy(&incomplete, payload, sizeof incomplete);
      if (selected(p, incomplete.time_ns, block_thread)) ++p.a.incomplete;
      // The rank is the one of the records before it in this process.
    } else if (!is_record_kind(kind)) {
      char unknown[160];
      lumen_unknown_record_kind("MPI", kind, unknown, sizeof unknown);
      fail(p, unknown);
    }
  } catch (const std::exception& e) {
    fail(p, e.what());
  }
}

template <typename Map>
void add_totals(Map& into, const Map& from) {
  for (const auto& [key, totals] : from) into[key].add(totals);
}

// Takes one part's totals into `a`, its compact calls under `rank`.
void merge(Aggregate& a, const Aggregate& part, int32_t rank) {
  auto resolved = [rank](int32_t r) { return r == kProcessRank ? rank : r; };
  add_totals(a.functions, part.functions);
  for (const auto& [r, info] : part.ranks) a.ranks[resolved(r)].totals.add(info.totals);
  for (const auto& [pair, t] : part.sent) {
    MessageTotals& into = a.sent[{resolved(pair.first), pair.second}];
    into.count += t.count;
    into.bytes = lumen_saturating_add(into.bytes, t.bytes);
  }
  for (const auto& [pair, t] : part.received) {
    MessageTotals& into = a.received[{pair.first, resolved(pair.second)}];
    into.count += t.count;
    into.bytes = lumen_saturating_add(into.bytes, t.bytes);
  }
  for (const auto& [r, info] : part.names) a.names[r] = info;
  a.processes += part.processes;
  a.incomplete += part.incomplete;
  a.all.add(part.all);
}

// Reads every record; false when a record could not be read (er_print
// reports it with its file and offset).
bool aggregate_all(const lumen_view_host* host, Aggregate& a, char* error, size_t error_size) {
  Reading reading;
  reading.host = host;
  host->for_each_record_in_parts(host->context, begin_part, visit_record, &reading);
  std::map<size_t, int32_t> experiment_ranks;
  std::map<size_t, std::pair<std::optional<int32_t>, int64_t>> traced;  // experiment -> (launcher's rank, calls)
  for (const auto& part : reading.parts) {
    if (part->failed) {
      std::snprintf(error, error_size, "an MPI record could not be read");
      return false;
    }
    if (part->process_rank) experiment_ranks[part->experiment] = *part->process_rank;
    auto& [launcher_rank, calls] = traced[part->experiment];
    if (part->traced_as) launcher_rank = part->traced_as;
    calls += part->calls_seen;
  }
  for (const auto& [experiment, seen] : traced)
    if (seen.first && seen.second == 0) a.silent.push_back(*seen.first);
  std::sort(a.silent.begin(), a.silent.end());
  for (const auto& part : reading.parts) {
    const auto found = experiment_ranks.find(part->experiment);
    merge(a, part->a, found != experiment_ranks.end() ? found->second : -1);
  }
  for (auto& [rank, info] : a.ranks) {
    const auto named = a.names.find(rank);
    if (named == a.names.end()) continue;
    info.world_size = named->second.world_size;
    info.library = named->second.library;
    info.host = named->second.host;
  }
  return true;
}

std::string rank_name(int32_t rank) { return rank < 0 ? std::string("unknown rank") : "rank " + std::to_string(rank); }

void common_summaries(const lumen_view_host* host, const Aggregate& a) {
  int64_t ranks = 0;
  for (const auto& [rank, info] : a.ranks) ranks += rank >= 0 ? 1 : 0;
  host->summary(host->context, "ranks", "Ranks", static_cast<double>(ranks), LUMEN_UNIT_COUNT);
  host->summary(host->context, "incomplete_traces", "Incomplete traces (VT_MAX_FLUSHES reached)",
                static_cast<double>(a.incomplete), LUMEN_UNIT_COUNT);
  host->summary(host->context, "silent_processes", "Processes traced that recorded no MPI call",
                static_cast<double>(a.silent.size()), LUMEN_UNIT_COUNT);
}

// A process that traced (its MPI library is the one the collector was
// built for) and recorded no call made its MPI calls past the interface
// traced, or none: said by name, so that no figure of 0 passes for a
// measurement.
void silent_processes_table(const lumen_view_host* host, const Aggregate& a) {
  if (a.silent.empty()) return;
  const lumen_view_column columns[] = {{"processes", "Processes", LUMEN_UNIT_COUNT}};
  host->table_begin(host->context,
                    "MPI tracing was on and no MPI call was recorded (the calls bypassed the MPI functions traced, "
                    "or the process made none)",
                    columns, std::size(columns));
  const double one = 1;
  for (const int32_t rank : a.silent) {
    const std::string name = rank < 0 ? std::string("a process the launcher gave no rank")
                                      : "rank " + std::to_string(rank) + " (as launched)";
    host->table_row(host->context, name.c_str(), &one, LUMEN_NO_STACK);
  }
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
    Aggregate a;
    if (!aggregate_all(host, a, error, error_size)) return 1;
    common_summaries(host, a);
    host->summary(host->context, "calls", "MPI calls", static_cast<double>(a.all.calls), LUMEN_UNIT_COUNT);
    host->summary(host->context, "mpitime", "MPI Time", static_cast<double>(a.all.time_ns), LUMEN_UNIT_NANOSECONDS);
    std::vector<std::pair<uint16_t, Totals>> rows(a.functions.begin(), a.functions.end());
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.second.time_ns > y.second.time_ns; });
    if (host->row_limit != 0 && rows.size() > host->row_limit) rows.resize(host->row_limit);
    host->table_begin(host->context, "MPI functions", kTotalsColumns, std::size(kTotalsColumns));
    for (const auto& [function, totals] : rows) totals_row(host, function_name(function), totals);
    silent_processes_table(host, a);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

int run_ranks(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    Aggregate a;
    if (!aggregate_all(host, a, error, error_size)) return 1;
    common_summaries(host, a);
    host->table_begin(host->context, "MPI ranks", kTotalsColumns, std::size(kTotalsColumns));
    for (const auto& [rank, info] : a.ranks) {
      std::string name = rank_name(rank);
      if (!info.host.empty()) name += " on " + info.host;
      if (!info.library.empty()) name += " (" + info.library + ")";
      totals_row(host, name, info.totals);
    }
    silent_processes_table(host, a);
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

int run_messages(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    Aggregate a;
    if (!aggregate_all(host, a, error, error_size)) return 1;
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
    silent_processes_table(host, a);
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
};
const size_t kMpiViewCount = std::size(kMpiViews);

}  // namespace lumen::mpi
