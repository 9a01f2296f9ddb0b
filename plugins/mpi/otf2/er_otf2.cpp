// er_otf2 EXPERIMENT DIRECTORY: exports the MPI trace of an experiment (the
// founder and its ranks' sub-experiments) as an OTF2 archive,
// DIRECTORY/traces.otf2, which Vampir and the other OTF2 tools open.
//
// One OTF2 location per rank; each traced call is an Enter/Leave pair of a
// region named after the MPI function, and each point-to-point message an
// MpiSend or MpiRecv event between them, on MPI_COMM_WORLD with world ranks
// (the collector translates peers of other communicators). Times are the
// experiment's CLOCK_MONOTONIC nanoseconds.
#include <lumen/analysis_plugin.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../clock_placement.h"
#include "../mpi_packed_call.h"
#include "data_file_reader.h"
#include "experiment_format.h"
#include "format_error.h"

namespace fs = std::filesystem;
using namespace lumen;

namespace {

struct TraceEvent {
  uint64_t time;
  int order;  // at equal times: enter (0) before messages (1) before leave (2)
  enum { kEnter, kLeave, kSend, kReceive } what;
  uint16_t function = 0;
  int32_t peer = -1;
  int32_t tag = 0;
  uint64_t bytes = 0;
};

struct RankTrace {
  std::vector<TraceEvent> events;
};

// Every rank's events, from every experiment under `founder` that has an MPI trace.
std::map<int32_t, RankTrace> read_ranks(const fs::path& founder) {
  std::vector<fs::path> descendants;
  for (const auto& entry : fs::directory_iterator(founder))
    if (entry.is_directory() && entry.path().extension() == ".er") descendants.push_back(entry.path());
  std::vector<fs::path> experiments{founder};
  experiments.insert(experiments.end(), descendants.begin(), descendants.end());
  // Ranks on other hosts are placed on one clock, as er_print places them.
  const YAML::Node reference =
      analysis::read_experiment_header(analysis::clock_reference(founder, analysis::read_experiment_header(founder),
                                                                 descendants));
  // First each experiment's rank, placement and clock measurements (the
  // last are written at MPI_Finalize), then its events placed on the job's
  // clock as the views place them (clock_placement.h).
  struct Placed {
    fs::path file;
    int32_t process_rank = -1;
    int64_t shift = 0;
    mpi::RankClock clock;
  };
  std::vector<Placed> placed;
  std::optional<int64_t> reference_shift;
  for (const fs::path& experiment : experiments) {
    const fs::path file = experiment / mpi::kDataFile;
    if (!fs::exists(file)) continue;
    const YAML::Node header = analysis::read_experiment_header(experiment);  // a format this lumen reads
    Placed p{file, -1, analysis::clock_shift_ns(header, reference).value_or(0), {}};
    analysis::read_data_file(file, [&](const analysis::RawRecord& r) {
      mpi::MpiProcess process;
      mpi::MpiClock clock;
      if (r.kind == mpi::kProcessRecord && r.payload_bytes >= sizeof process) {
        std::memcpy(&process, r.payload, sizeof process);
        p.process_rank = process.rank;
      } else if (r.kind == mpi::kClockRecord && r.payload_bytes >= sizeof clock) {
        std::memcpy(&clock, r.payload, sizeof clock);
        if (clock.phase == mpi::kClockAtInit) p.clock.init = clock;
        else if (clock.phase == mpi::kClockAtFinalize) p.clock.finalize = clock;
      }
    });
    if (p.process_rank == 0) reference_shift = p.shift;
    placed.push_back(std::move(p));
  }
  std::map<int32_t, RankTrace> ranks;
  for (const Placed& p : placed) {
    const fs::path& file = p.file;
    const mpi::ClockPlacement placement = p.clock.measured() && reference_shift
                                              ? mpi::ClockPlacement::measured(p.clock, *reference_shift)
                                              : mpi::ClockPlacement::shifted(p.shift);
    auto add_call = [&](const mpi::MpiCall& call) {
      if (call.rank < 0 || call.exit_ns < call.enter_ns) return;
      auto& events = ranks[call.rank].events;
      events.push_back({placement.place(call.enter_ns), 0, TraceEvent::kEnter, call.function});
      events.push_back({placement.place(call.exit_ns), 2, TraceEvent::kLeave, call.function});
    };
    auto add_message = [&](const mpi::MpiMessage& m) {
      if (m.rank < 0 || m.peer < 0) return;
      ranks[m.rank].events.push_back({placement.place(m.time_ns), 1,
                                      m.direction == mpi::kMessageSent ? TraceEvent::kSend : TraceEvent::kReceive,
                                      m.function, m.peer, m.tag, m.bytes});
    };
    const int32_t process_rank = p.process_rank;  // a compact call's rank is its process's
    analysis::read_data_file(file, [&](const analysis::RawRecord& r) {
      if (r.kind == mpi::kCompactCallRecord) {
        mpi::UnpackedCall unpacked;
        const char* problem = nullptr;
        if (!mpi::unpack(r.payload, r.payload_bytes, mpi::CallWriter{r.block_thread_id, process_rank}, unpacked,
                         &problem))
          throw analysis::FormatError(file.string(), r.offset, problem);
        add_call(unpacked.call);
        for (int i = 0; i < unpacked.message_count; ++i) add_message(unpacked.messages[i]);
      } else if (r.kind == mpi::kCallRecord && r.payload_bytes >= sizeof(mpi::MpiCall)) {
        mpi::MpiCall call;
        std::memcpy(&call, r.payload, sizeof call);
        add_call(call);
      } else if (r.kind == mpi::kMessageRecord && r.payload_bytes >= sizeof(mpi::MpiMessage)) {
        mpi::MpiMessage m;
        std::memcpy(&m, r.payload, sizeof m);
        add_message(m);
      } else if (!mpi::is_record_kind(r.kind)) {
        char unknown[160];
        lumen_unknown_record_kind("MPI", r.kind, unknown, sizeof unknown);
        throw analysis::FormatError(file.string(), r.offset, unknown);
      }
    });
  }
  for (auto& [rank, trace] : ranks)
    std::stable_sort(trace.events.begin(), trace.events.end(), [](const TraceEvent& a, const TraceEvent& b) {
      return a.time != b.time ? a.time < b.time : a.order < b.order;
    });
  return ranks;
}

void check(OTF2_ErrorCode code, const char* what) {
  if (code != OTF2_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + OTF2_Error_GetName(code) + " (" +
                             OTF2_Error_GetDescription(code) + ")");
}

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }

void write_archive(const fs::path& directory, const std::map<int32_t, RankTrace>& ranks) {
  OTF2_Archive* archive = OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                            4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr) throw std::runtime_error("cannot create the OTF2 archive in " + directory.string());
  OTF2_FlushCallbacks flush{pre_flush, post_flush};
  check(OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr), "flush callbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
  check(OTF2_Archive_SetCreator(archive, "lumen er_otf2"), "creator");
  check(OTF2_Archive_OpenEvtFiles(archive), "opening the event files");

  uint64_t first = UINT64_MAX, last = 0;
  std::map<uint16_t, uint32_t> regions;  // MPI function -> region id
  std::map<int32_t, uint64_t> event_counts;
  for (const auto& [rank, trace] : ranks) {
    OTF2_EvtWriter* writer = OTF2_Archive_GetEvtWriter(archive, static_cast<OTF2_LocationRef>(rank));
    if (writer == nullptr) throw std::runtime_error("cannot open the event writer of rank " + std::to_string(rank));
    for (const TraceEvent& e : trace.events) {
      first = std::min(first, e.time);
      last = std::max(last, e.time);
      const uint32_t region = regions.emplace(e.function, static_cast<uint32_t>(regions.size())).first->second;
      switch (e.what) {
        case TraceEvent::kEnter: check(OTF2_EvtWriter_Enter(writer, nullptr, e.time, region), "enter"); break;
        case TraceEvent::kLeave: check(OTF2_EvtWriter_Leave(writer, nullptr, e.time, region), "leave"); break;
        case TraceEvent::kSend:
          check(OTF2_EvtWriter_MpiSend(writer, nullptr, e.time, static_cast<uint32_t>(e.peer), 0,
                                       static_cast<uint32_t>(e.tag), e.bytes), "send");
          break;
        case TraceEvent::kReceive:
          check(OTF2_EvtWriter_MpiRecv(writer, nullptr, e.time, static_cast<uint32_t>(e.peer), 0,
                                       static_cast<uint32_t>(e.tag), e.bytes), "receive");
          break;
      }
    }
    event_counts[rank] = trace.events.size();
    check(OTF2_Archive_CloseEvtWriter(archive, writer), "closing an event writer");
  }
  check(OTF2_Archive_CloseEvtFiles(archive), "closing the event files");

  // Every location needs its (here empty) local definitions.
  check(OTF2_Archive_OpenDefFiles(archive), "opening the definition files");
  for (const auto& [rank, trace] : ranks) {
    OTF2_DefWriter* writer = OTF2_Archive_GetDefWriter(archive, static_cast<OTF2_LocationRef>(rank));
    check(OTF2_Archive_CloseDefWriter(archive, writer), "closing a definition writer");
  }
  check(OTF2_Archive_CloseDefFiles(archive), "closing the definition files");

  OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive);
  if (first == UINT64_MAX) first = last = 0;
  check(OTF2_GlobalDefWriter_WriteClockProperties(defs, 1000000000, first, last - first + 1, OTF2_UNDEFINED_TIMESTAMP),
        "clock properties");
  uint32_t next_string = 0;
  auto string = [&](const std::string& text) {
    check(OTF2_GlobalDefWriter_WriteString(defs, next_string, text.c_str()), "string");
    return next_string++;
  };
  const uint32_t empty = string("");
  std::vector<std::pair<uint32_t, uint16_t>> by_id;  // definitions go in id order
  for (const auto& [function, region] : regions) by_id.emplace_back(region, function);
  std::sort(by_id.begin(), by_id.end());
  for (const auto& [region, function] : by_id) {
    const uint32_t name = string(mpi::function_name(function));
    check(OTF2_GlobalDefWriter_WriteRegion(defs, region, name, name, empty, OTF2_REGION_ROLE_FUNCTION,
                                           OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0, 0),
          "region");
  }
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, string("job"), string("machine"),
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "system tree");
  std::vector<uint64_t> locations, members;
  for (const auto& [rank, trace] : ranks) {
    const std::string name = "rank " + std::to_string(rank);
    check(OTF2_GlobalDefWriter_WriteLocationGroup(defs, static_cast<uint32_t>(rank), string(name),
                                                  OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP),
          "location group");
    check(OTF2_GlobalDefWriter_WriteLocation(defs, static_cast<uint64_t>(rank), string(name + " main thread"),
                                             OTF2_LOCATION_TYPE_CPU_THREAD, event_counts[rank],
                                             static_cast<uint32_t>(rank)),
          "location");
  }
  // MPI_COMM_WORLD: its members are the world ranks, each its location.
  int32_t world_size = ranks.empty() ? 0 : ranks.rbegin()->first + 1;
  for (int32_t r = 0; r < world_size; ++r) {
    locations.push_back(static_cast<uint64_t>(r));
    members.push_back(static_cast<uint64_t>(r));
  }
  check(OTF2_GlobalDefWriter_WriteGroup(defs, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(locations.size()), locations.data()),
        "locations group");
  check(OTF2_GlobalDefWriter_WriteGroup(defs, 1, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, static_cast<uint32_t>(members.size()), members.data()),
        "world group");
  check(OTF2_GlobalDefWriter_WriteComm(defs, 0, string("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
        "communicator");
  check(OTF2_Archive_Close(archive), "closing the archive");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: er_otf2 EXPERIMENT DIRECTORY\n"
                 "  writes the experiment's MPI trace as the OTF2 archive DIRECTORY/traces.otf2\n";
    return 2;
  }
  try {
    const fs::path experiment = argv[1];
    if (!fs::is_directory(experiment)) throw std::runtime_error(experiment.string() + " is not an experiment directory");
    const auto ranks = read_ranks(experiment);
    if (ranks.empty()) throw std::runtime_error(experiment.string() + " holds no MPI trace (collect -m on)");
    if (fs::exists(fs::path(argv[2]) / "traces.otf2"))
      throw std::runtime_error(std::string(argv[2]) + "/traces.otf2 exists already");
    write_archive(argv[2], ranks);
    size_t events = 0;
    for (const auto& [rank, trace] : ranks) events += trace.events.size();
    std::cout << "er_otf2: " << ranks.size() << " ranks, " << events << " events -> " << argv[2] << "/traces.otf2\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "er_otf2: " << e.what() << "\n";
    return 1;
  }
}
