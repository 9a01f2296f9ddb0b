#include "mpi_reading.h"

#include <lumen/analysis_support.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>

#include "../mpi_packed_call.h"
#include "mpi_message_sizes.h"

namespace lumen::mpi {
namespace {

// One part's reading: its records' totals, and its experiment's rank when
// the part holds its process record.
struct Part {
  const lumen_view_host* host = nullptr;
  void* context = nullptr;  // the part's, for selected and record_failed
  size_t experiment = 0;
  Aggregate a;
  std::optional<int32_t> process_rank;
  std::optional<int32_t> traced_as;
  bool keep_events = false;  // the launcher's rank, once the settings record says the process traced
  int64_t calls_seen = 0;  // call records, selected or not
  bool failed = false;
  // The experiment's host's clock placed on its job's
  // (lumen_view_host.clock_shift_ns), and what the rank measured of its
  // clock: the timeline's times are placed when the parts are merged.
  int64_t clock_shift_ns = 0;
  RankClock clock;
  uint32_t experiment_number = 0;  // 0: the host does not say (before SDK 1.10)
  uint64_t experiment_start_ns = 0;
};

struct Reading {
  const lumen_view_host* host = nullptr;
  bool keep_events = false;
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
  if (p.keep_events)
    p.a.calls.push_back(
        {call.enter_ns, call.exit_ns, call.bytes_sent, call.bytes_received, call.rank, call.peer, call.function});
  p.a.functions[call.function].add(call);
  p.a.ranks[call.rank].totals.add(call);
  p.a.all.add(call);
}

void add_message(Part& p, const MpiMessage& m, uint32_t thread_id) {
  if (!selected(p, m.time_ns, thread_id)) return;
  if (p.keep_events)
    p.a.messages.push_back({m.time_ns, m.bytes, m.rank, m.peer, m.tag, m.direction, m.function});
  MessageTotals& t = m.direction == kMessageSent ? p.a.sent[{m.rank, m.peer}] : p.a.received[{m.peer, m.rank}];
  t.count += 1;
  t.bytes = lumen_saturating_add(t.bytes, lumen_value_of(m.bytes));
  if (m.direction != kMessageSent) return;
  MessageTotals& sized = p.a.sent_by_size[size_class(m.bytes)];
  sized.count += 1;
  sized.bytes = lumen_saturating_add(sized.bytes, lumen_value_of(m.bytes));
}

void* begin_part(void* arg, const lumen_record_part* part) {
  auto* reading = static_cast<Reading*>(arg);
  auto state = std::make_unique<Part>();
  state->host = reading->host;
  state->context = part->context;
  if (LUMEN_PROVIDES(reading->host, clock_shift_ns))
    state->clock_shift_ns = reading->host->clock_shift_ns(part->context);
  if (LUMEN_PROVIDES(reading->host, experiment_start_ns)) {
    state->experiment_number = reading->host->experiment_number(part->context);
    state->experiment_start_ns = reading->host->experiment_start_ns(part->context);
  }
  state->experiment = part->experiment;
  state->keep_events = reading->keep_events;
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
    } else if (kind == kClockRecord && bytes >= sizeof(MpiClock)) {
      MpiClock clock;
      std::memcpy(&clock, payload, sizeof clock);
      if (clock.phase == kClockAtInit) p.clock.init = clock;
      else if (clock.phase == kClockAtFinalize) p.clock.finalize = clock;
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

// Takes one part's totals into `a`, its compact calls under `rank`, its
// times placed on the job's clock; the part's events are let go as they
// are taken (a long trace's are most of the reading's memory).
void merge(Aggregate& a, Aggregate& part, int32_t rank, const ClockPlacement& placement) {
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
  for (const auto& [k, t] : part.sent_by_size) {
    MessageTotals& into = a.sent_by_size[k];
    into.count += t.count;
    into.bytes = lumen_saturating_add(into.bytes, t.bytes);
  }
  for (const auto& [r, info] : part.names) a.names[r] = info;
  a.processes += part.processes;
  a.incomplete += part.incomplete;
  a.all.add(part.all);
  for (TimedCall call : part.calls) {
    call.rank = resolved(call.rank);
    call.enter_ns = placement.place(call.enter_ns);
    call.exit_ns = placement.place(call.exit_ns);
    a.calls.push_back(call);
  }
  std::vector<TimedCall>().swap(part.calls);
  for (TimedMessage m : part.messages) {
    m.rank = resolved(m.rank);
    m.time_ns = placement.place(m.time_ns);
    a.messages.push_back(m);
  }
  std::vector<TimedMessage>().swap(part.messages);
}

}  // namespace

bool aggregate_all(const lumen_view_host* host, Aggregate& a, char* error, size_t error_size, bool keep_events) {
  Reading reading;
  reading.host = host;
  reading.keep_events = keep_events;
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
  // Each experiment's clock: its own placement, or, where its rank
  // measured its clock, rank 0's placement and the measurements.
  std::map<size_t, std::pair<int64_t, RankClock>> clocks;  // experiment -> (shift, measured)
  for (const auto& part : reading.parts) {
    auto& [shift, clock] = clocks[part->experiment];
    shift = part->clock_shift_ns;
    if (part->clock.init) clock.init = part->clock.init;
    if (part->clock.finalize) clock.finalize = part->clock.finalize;
  }
  std::optional<int64_t> reference_shift;
  for (const auto& [experiment, rank] : experiment_ranks)
    if (rank == 0) reference_shift = clocks[experiment].first;
  std::map<size_t, ClockPlacement> placements;
  for (const auto& [experiment, clock] : clocks) {
    const bool measured = clock.second.measured() && reference_shift;
    placements[experiment] = measured ? ClockPlacement::measured(clock.second, *reference_shift)
                                      : ClockPlacement::shifted(clock.first);
    const auto rank = experiment_ranks.find(experiment);
    if (rank != experiment_ranks.end() && clock.second.measured()) a.clocks[rank->second] = clock.second;
  }
  size_t calls = 0, messages = 0;
  for (const auto& part : reading.parts) calls += part->a.calls.size(), messages += part->a.messages.size();
  a.calls.reserve(calls);
  a.messages.reserve(messages);
  for (const auto& part : reading.parts) {
    const auto found = experiment_ranks.find(part->experiment);
    const ClockPlacement& placement = placements[part->experiment];
    merge(a, part->a, found != experiment_ranks.end() ? found->second : -1, placement);
    if (found != experiment_ranks.end() && part->experiment_number != 0)
      a.experiments[found->second] = {part->experiment_number, placement.place(part->experiment_start_ns),
                                      placement.rate()};
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

const Aggregate* shared_aggregate(const lumen_view_host* host, Aggregate& own, char* error, size_t error_size) {
  std::unique_ptr<Aggregate> read_now;
  std::string problem;
  const Aggregate* a = kept_reading(host, "aggregate", read_now, problem, [&](Aggregate& into) {
    char why[256] = "";
    return aggregate_all(host, into, why, sizeof why) ? std::string() : std::string(why[0] ? why : "no MPI records read");
  });
  if (a == nullptr) {
    std::snprintf(error, error_size, "%s", problem.c_str());
    return nullptr;
  }
  if (read_now) {  // an older host: read for this view alone
    own = std::move(*read_now);
    return &own;
  }
  return a;
}

}  // namespace lumen::mpi
