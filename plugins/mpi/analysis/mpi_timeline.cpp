// -mpi_timeline: each rank's MPI calls in time, and each point-to-point
// message from the call that sent it to the call that received it, as
// Vampir and the Oracle Analyzer's MPI Timeline draw them.
//
// A message is matched by MPI's order rule: two messages from one sender
// to one receiver with one tag arrive in the order they were sent. So the
// n-th send from S to R with tag T is the n-th receive by R from S with
// tag T. Communicators are not compared (a handle's bits differ from one
// process to the next); a program that interleaves one tag between the
// same two ranks on several communicators may see two such messages
// crossed (the view counts matched messages whose sizes differ). Sends or
// receives left without a partner (outside the selection, a job cut short)
// are counted, not drawn.
//
// Times are nanoseconds since the first call or message of the selection,
// on the job's clock: each rank's CLOCK_MONOTONIC placed on rank 0's by
// what the rank measured at MPI_Init and MPI_Finalize (a last table shows
// it), or else by its experiment's wall-clock placement.
#include <lumen/analysis_plugin.h>
#include <lumen/analysis_support.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "mpi_analysis.h"
#include "mpi_reading.h"

namespace lumen::mpi {
namespace {

struct MatchedMessage {
  const TimedMessage* send;
  const TimedMessage* receive;
};

struct Matching {
  std::vector<MatchedMessage> matched;  // by send time
  int64_t unmatched_sends = 0;
  int64_t unmatched_receives = 0;
  int64_t sizes_differ = 0;  // matched, with another size received than sent
};

using Channel = std::tuple<int32_t, int32_t, int32_t>;  // sender, receiver, tag

Matching match_messages(const std::vector<TimedMessage>& messages) {
  std::map<Channel, std::vector<const TimedMessage*>> sends, receives;
  for (const TimedMessage& m : messages) {
    if (m.direction == kMessageSent) sends[{m.rank, m.peer, m.tag}].push_back(&m);
    else if (m.direction == kMessageReceived) receives[{m.peer, m.rank, m.tag}].push_back(&m);
  }
  const auto by_time = [](const TimedMessage* a, const TimedMessage* b) { return a->time_ns < b->time_ns; };
  Matching matching;
  for (auto& [channel, sent] : sends) {
    std::stable_sort(sent.begin(), sent.end(), by_time);
    auto found = receives.find(channel);
    std::vector<const TimedMessage*> none;
    std::vector<const TimedMessage*>& received = found == receives.end() ? none : found->second;
    std::stable_sort(received.begin(), received.end(), by_time);
    const size_t pairs = std::min(sent.size(), received.size());
    for (size_t i = 0; i < pairs; ++i) {
      matching.matched.push_back({sent[i], received[i]});
      matching.sizes_differ += sent[i]->bytes != received[i]->bytes ? 1 : 0;
    }
    matching.unmatched_sends += static_cast<int64_t>(sent.size() - pairs);
    matching.unmatched_receives += static_cast<int64_t>(received.size() - pairs);
  }
  for (const auto& [channel, received] : receives)
    if (!sends.count(channel)) matching.unmatched_receives += static_cast<int64_t>(received.size());
  std::stable_sort(matching.matched.begin(), matching.matched.end(),
                   [](const MatchedMessage& a, const MatchedMessage& b) { return a.send->time_ns < b.send->time_ns; });
  return matching;
}

uint64_t first_time(const Aggregate& a) {
  uint64_t first = UINT64_MAX;
  for (const TimedCall& c : a.calls) first = std::min(first, c.enter_ns);
  for (const TimedMessage& m : a.messages) first = std::min(first, m.time_ns);
  return first == UINT64_MAX ? 0 : first;
}

double since(uint64_t time_ns, uint64_t zero) { return static_cast<double>(time_ns - zero); }

// What the timeline reads, kept by the session while the selection stays
// (lumen_view_host.kept): every call in time, and the messages matched.
struct TimelineReading {
  Aggregate a;
  Matching matching;  // points into a.messages
  uint64_t zero = 0;
};

std::string read_timeline(const lumen_view_host* host, TimelineReading& into) {
  char why[256] = "";
  if (!aggregate_all(host, into.a, why, sizeof why, true)) return why[0] ? why : "no MPI records read";
  std::stable_sort(into.a.calls.begin(), into.a.calls.end(), [](const TimedCall& a, const TimedCall& b) {
    return std::tie(a.enter_ns, a.rank) < std::tie(b.enter_ns, b.rank);
  });
  into.matching = match_messages(into.a.messages);
  into.zero = first_time(into.a);
  return "";
}

void calls_table(const lumen_view_host* host, const std::vector<TimedCall>& calls, uint64_t zero) {
  const lumen_view_column columns[] = {
      {"rank", "Rank", LUMEN_UNIT_COUNT},
      {"start", "Start", LUMEN_UNIT_NANOSECONDS},
      {"duration", "Duration", LUMEN_UNIT_NANOSECONDS},
      {"peer", "Peer", LUMEN_UNIT_COUNT},
      {"bytes_sent", "Bytes Sent", LUMEN_UNIT_BYTES},
      {"bytes_received", "Bytes Received", LUMEN_UNIT_BYTES},
  };
  host->table_begin(host->context, "MPI calls in time (peer -1: none, or several)", columns, std::size(columns));
  const size_t shown = host->row_limit != 0 ? std::min(host->row_limit, calls.size()) : calls.size();
  for (size_t i = 0; i < shown; ++i) {
    const TimedCall& c = calls[i];
    const double values[] = {static_cast<double>(c.rank),
                             since(c.enter_ns, zero),
                             static_cast<double>(c.exit_ns - c.enter_ns),
                             static_cast<double>(c.peer),
                             static_cast<double>(c.bytes_sent),
                             static_cast<double>(c.bytes_received)};
    host->table_row(host->context, function_name(c.function), values, LUMEN_NO_STACK);
  }
}

void messages_table(const lumen_view_host* host, const Matching& matching, uint64_t zero) {
  const lumen_view_column columns[] = {
      {"sender", "Sender", LUMEN_UNIT_COUNT},
      {"receiver", "Receiver", LUMEN_UNIT_COUNT},
      {"sent", "Sent", LUMEN_UNIT_NANOSECONDS},
      {"received", "Received", LUMEN_UNIT_NANOSECONDS},
      {"bytes", "Bytes", LUMEN_UNIT_BYTES},
      {"tag", "Tag", LUMEN_UNIT_COUNT},
  };
  host->table_begin(host->context,
                    "Messages from the send's return to the receive's completion (each call's return)", columns,
                    std::size(columns));
  const size_t count = matching.matched.size();
  const size_t shown = host->row_limit != 0 ? std::min(host->row_limit, count) : count;
  for (size_t i = 0; i < shown; ++i) {
    const TimedMessage& send = *matching.matched[i].send;
    const TimedMessage& receive = *matching.matched[i].receive;
    const double values[] = {static_cast<double>(send.rank),    static_cast<double>(receive.rank),
                             since(send.time_ns, zero),         since(receive.time_ns, zero),
                             static_cast<double>(receive.bytes), static_cast<double>(send.tag)};
    const std::string name = rank_name(send.rank) + " -> " + rank_name(receive.rank) + " (" +
                             function_name(send.function) + " to " + function_name(receive.function) + ")";
    host->table_row(host->context, name.c_str(), values, LUMEN_NO_STACK);
  }
}

// Where each rank's experiment starts on the timeline, and how fast its
// clock runs there: a stretch [a, b] of the timeline is, in the rank's own
// times since its start (a selection's TSTAMP), [(a - start) / rate,
// (b - start) / rate].
void experiments_table(const lumen_view_host* host, const Aggregate& a, uint64_t zero) {
  if (a.experiments.empty()) return;
  const lumen_view_column columns[] = {
      {"rank", "Rank", LUMEN_UNIT_COUNT},
      {"experiment", "Experiment", LUMEN_UNIT_COUNT},
      {"start", "Start", LUMEN_UNIT_NANOSECONDS},
      {"drift_ppm", "Drift (ppm)", LUMEN_UNIT_COUNT},
  };
  host->table_begin(host->context,
                    "Each rank's experiment on the timeline (its start; its clock runs 1 + drift as fast)", columns,
                    std::size(columns));
  for (const auto& [rank, place] : a.experiments) {
    const double values[] = {static_cast<double>(rank), static_cast<double>(place.number),
                             static_cast<double>(static_cast<int64_t>(place.start_ns - zero)),
                             (place.rate - 1.0) * 1e6};
    host->table_row(host->context, rank_name(rank).c_str(), values, LUMEN_NO_STACK);
  }
}

// What each rank measured of its clock against rank 0's: how its times were
// placed on the job's clock, and how far they may be off.
void clocks_table(const lumen_view_host* host, const Aggregate& a) {
  if (a.clocks.empty()) return;
  const lumen_view_column columns[] = {
      {"rank", "Rank", LUMEN_UNIT_COUNT},
      {"offset_init", "Offset at MPI_Init", LUMEN_UNIT_NANOSECONDS},
      {"error_init_us", "Error at MPI_Init (us)", LUMEN_UNIT_COUNT},
      {"offset_finalize", "Offset at MPI_Finalize", LUMEN_UNIT_NANOSECONDS},
      {"error_finalize_us", "Error at MPI_Finalize (us)", LUMEN_UNIT_COUNT},
      {"between", "Between", LUMEN_UNIT_NANOSECONDS},
      {"drift_ppm", "Drift (ppm)", LUMEN_UNIT_COUNT},
  };
  host->table_begin(host->context,
                    "Clocks of the ranks, placed on rank 0's (offset: what rank 0 read more; error: half the "
                    "quickest round trip)",
                    columns, std::size(columns));
  for (const auto& [rank, clock] : a.clocks) {
    const auto named = a.names.find(rank);
    std::string name = rank_name(rank);
    if (named != a.names.end() && !named->second.host.empty()) name += " on " + named->second.host;
    if ((clock.init && clock.init->same_clock) || (clock.finalize && clock.finalize->same_clock))
      name += " (rank 0's clock)";
    const auto value = [](const std::optional<MpiClock>& c, bool error) {
      return !c ? 0.0 : error ? static_cast<double>(c->error_ns) / 1e3 : static_cast<double>(c->offset_ns);
    };
    const double between = clock.init && clock.finalize
                               ? static_cast<double>(static_cast<int64_t>(clock.finalize->local_ns - clock.init->local_ns))
                               : 0.0;
    const double values[] = {static_cast<double>(rank),
                             value(clock.init, false),
                             value(clock.init, true),
                             value(clock.finalize, false),
                             value(clock.finalize, true),
                             between,
                             clock.drift() * 1e6};
    host->table_row(host->context, name.c_str(), values, LUMEN_NO_STACK);
  }
}

}  // namespace

int run_timeline(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    std::unique_ptr<TimelineReading> read_now;
    std::string problem;
    const TimelineReading* reading = kept_reading(
        host, "timeline", read_now, problem, [&](TimelineReading& into) { return read_timeline(host, into); });
    if (reading == nullptr) {
      std::snprintf(error, error_size, "%s", problem.c_str());
      return 1;
    }
    const Aggregate& a = reading->a;
    const Matching& matching = reading->matching;
    const uint64_t zero = reading->zero;
    int64_t ranks = 0;
    for (const auto& [rank, info] : a.ranks) ranks += rank >= 0 ? 1 : 0;
    const auto count = [&](const char* key, const char* label, double value) {
      host->summary(host->context, key, label, value, LUMEN_UNIT_COUNT);
    };
    count("ranks", "Ranks", static_cast<double>(ranks));
    count("calls", "MPI calls", static_cast<double>(a.calls.size()));
    count("messages", "Messages matched, send to receive", static_cast<double>(matching.matched.size()));
    count("unmatched_sends", "Sends without a receive in the selection", static_cast<double>(matching.unmatched_sends));
    count("unmatched_receives", "Receives without a send in the selection",
          static_cast<double>(matching.unmatched_receives));
    count("sizes_differ", "Messages matched whose size received differs from the size sent",
          static_cast<double>(matching.sizes_differ));
    calls_table(host, a.calls, zero);
    messages_table(host, matching, zero);
    experiments_table(host, a, zero);
    clocks_table(host, a);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

}  // namespace lumen::mpi
