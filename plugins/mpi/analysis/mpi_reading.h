// The MPI plugin's records read for its views: every selected call's and
// message's totals by function, rank and rank pair, and, for the timeline,
// each call and message end in time. A compact call record leaves its rank
// to the process record of its experiment: the records are read in parts
// (runs of blocks, several at once), each part knowing its experiment, and
// a part's compact calls are counted under kProcessRank until the parts are
// merged, and the timeline's times are placed on the job's clock
// (clock_placement.h) then. A call counts by its thread and the time it returned, as the
// function views count it; a message by the thread and time of the call
// that started or completed it.
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../clock_placement.h"
#include "../mpi_record.h"

namespace lumen::mpi {

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

// One MPI call's place in time, kept for the timeline.
struct TimedCall {
  uint64_t enter_ns;
  uint64_t exit_ns;
  uint64_t bytes_sent;
  uint64_t bytes_received;
  int32_t rank;
  int32_t peer;
  uint16_t function;
};

// One end of a point-to-point message, kept for the timeline: a send (rank
// is the sender) or a completed receive (rank is the receiver).
struct TimedMessage {
  uint64_t time_ns;
  uint64_t bytes;
  int32_t rank;
  int32_t peer;
  int32_t tag;
  uint16_t direction;
  uint16_t function;
};

struct Aggregate {
  std::map<uint16_t, Totals> functions;
  std::map<int32_t, RankInfo> ranks;  // -1: calls before MPI_Init
  std::map<std::pair<int32_t, int32_t>, MessageTotals> sent;      // (sender, receiver)
  std::map<std::pair<int32_t, int32_t>, MessageTotals> received;  // (sender, receiver)
  std::map<int, MessageTotals> sent_by_size;  // by size_class (mpi_message_sizes.h)
  std::map<int32_t, RankInfo> names;  // host and library of every rank, selected or not
  int64_t processes = 0;  // settings records: processes that traced
  // The launcher's rank (-1: none) of each process that traced and
  // recorded no MPI call at all, selected or not.
  std::vector<int32_t> silent;
  int64_t incomplete = 0;
  Totals all;
  // Each selected call and message end, in file order per process; only
  // when asked for (aggregate_all's keep_events).
  std::vector<TimedCall> calls;
  std::vector<TimedMessage> messages;
  // What each rank measured of its clock against rank 0's, selected or not.
  std::map<int32_t, RankClock> clocks;
  // Each rank's experiment (when the host names it, SDK 1.10): its number
  // and start, the start placed on the job's clock as the times are, and
  // how fast its clock runs there; what turns a stretch of the timeline
  // into each experiment's own times (TSTAMP).
  struct ExperimentPlace {
    uint32_t number = 0;
    uint64_t start_ns = 0;  // placed
    double rate = 1.0;
  };
  std::map<int32_t, ExperimentPlace> experiments;
};

// Reads every record of the selection into `a` (with each call and message
// end when `keep_events`); false when a record could not be read (er_print
// reports it with its file and offset).
bool aggregate_all(const lumen_view_host* host, Aggregate& a, char* error, size_t error_size, bool keep_events = false);

// The selection's aggregate without events, read once for all the views
// that ask while the selection stays (lumen_view_host.kept; a host before
// SDK 1.9 has them read it each time, into `own`). Null when a record
// could not be read, with why in `error`.
const Aggregate* shared_aggregate(const lumen_view_host* host, Aggregate& own, char* error, size_t error_size);

std::string rank_name(int32_t rank);

}  // namespace lumen::mpi
