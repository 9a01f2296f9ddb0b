// An experiment directory opened for analysis: its header and log, stack
// table, load-object map, and each data file paired with the analysis half
// of the plugin that wrote it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis_plugins.h"
#include "described_code.h"
#include "loadobject_map.h"
#include "plugin_catalog.h"
#include "sample_table.h"
#include "stack_store.h"

namespace lumen::analysis {

// Stack ids a decoder obtained from lumen_event_sink.artificial_stack: far
// above any recorded stack id (those are bounded by the stacks file's size).
inline constexpr uint64_t kArtificialStackBase = 0xffffffff00000000ull;
// Stack ids a decoder made for a traced call (lumen_event_sink's
// traced_call_stack): a recorded stack with the call's function as its leaf.
inline constexpr uint64_t kTracedCallStackBase = 0xfffffffe00000000ull;
inline bool is_traced_call_stack(uint64_t stack_id) {
  return stack_id >= kTracedCallStackBase && stack_id < kArtificialStackBase;
}
inline bool is_artificial_stack(uint64_t stack_id) {
  return stack_id >= kArtificialStackBase && stack_id != UINT64_MAX;
}

struct DataFile {
  std::string plugin;
  std::string name;
  const host::AnalysisHalf* half = nullptr;
  YAML::Node options;  // the plugin's options as the experiment recorded them
  // The registry index of each value of this file's events: the metrics of
  // the experiment's configuration of the plugin, in order (experiment_metrics.h).
  std::vector<size_t> metric_index;
  void* decoder_context = nullptr;  // lumen_configuration.decoder_context
  uint64_t readable_bytes = UINT64_MAX;  // blocks starting here or after are not read (a damaged tail)
  std::vector<uint64_t> block_offsets;   // where its readable blocks start
};

// What a plugin's data says a thread is (name_thread): its name, and
// whether a runtime runs it for itself.
struct ThreadName {
  std::string name;
  bool runtime_system = false;
};

// The ids of artificial and traced-call stacks a decoder asked for while
// decoding a part of a data file apart from the rest (on a thread of its
// own): numbered within the part, in the order asked for, until
// Experiment::adopt_part_ids gives them the experiment's; and the threads
// it named, in order, which the experiment learns then too.
struct PartStackIds {
  struct TracedCall {
    uint64_t stack_id;
    std::string function;
  };
  std::vector<std::string> artificial;
  std::vector<TracedCall> traced;
  std::map<std::pair<uint64_t, std::string>, uint64_t> traced_index;
  std::vector<std::pair<uint32_t, ThreadName>> thread_names;
  std::vector<DescribedCode> described_code;
};

// A part's ids as the experiment's (Experiment::adopt_part_ids).
class PartIdMap {
 public:
  PartIdMap(std::vector<uint64_t> artificial, std::vector<uint64_t> traced)
      : artificial_(std::move(artificial)), traced_(std::move(traced)) {}
  uint64_t operator()(uint64_t stack_id) const;

 private:
  std::vector<uint64_t> artificial_;
  std::vector<uint64_t> traced_;
};

// A part's decoder state, kept to be merged with the next parts' when the
// plugin merges them (lumen_analysis_descriptor.decoder_merge); ended
// (decoder_end with no sink, which frees it) when dropped.
struct DecoderStateEnd {
  const lumen_analysis_descriptor* descriptor = nullptr;
  void operator()(void* state) const;
};
using DecoderState = std::unique_ptr<void, DecoderStateEnd>;

class Experiment {
 public:
  // Throws FormatError when `path` is not a readable experiment. Its
  // metrics join a session's with register_metrics (experiment_metrics.h).
  Experiment(const std::filesystem::path& path, const AnalysisPlugins& plugins);

  const std::filesystem::path& path() const { return path_; }
  const YAML::Node& header() const { return header_; }
  // The process it recorded (header: target_pid; 0 when it says none) and
  // its command line, words joined by spaces.
  int64_t target_pid() const;
  std::string command_text() const;
  const std::vector<YAML::Node>& log() const { return log_; }
  const StackStore& stacks() const { return stacks_; }
  const LoadObjectMap& loadobjects() const { return loadobjects_; }
  const std::vector<DataFile>& data_files() const { return data_files_; }
  // The plugin's configuration for this experiment (register_metrics).
  void set_configuration(size_t data_file, std::vector<size_t> metric_index, void* decoder_context) {
    data_files_.at(data_file).metric_index = std::move(metric_index);
    data_files_.at(data_file).decoder_context = decoder_context;
  }
  const std::vector<std::string>& warnings() const { return warnings_; }
  void add_warning(const std::string& warning) { warnings_.push_back(warning); }
  // Nanoseconds to add to this experiment's times (its host's
  // CLOCK_MONOTONIC) to place them on the clock of the experiment it was
  // opened with (place_on_clock_of): 0 on the same host.
  int64_t clock_shift_ns() const { return clock_shift_ns_; }
  // An experiment recorded on another host than `reference` (a rank of a
  // job across hosts) is placed on its clock through their wall clocks,
  // each read beside its monotonic one at the start of the recording.
  void place_on_clock_of(const Experiment& reference);
  // The plugins whose planned data file is gone from the experiment.
  const std::vector<std::string>& missing_data() const { return missing_data_; }
  const SampleTable& samples() const { return samples_; }
  // The kernel ids of the threads that wrote data, ascending; a thread's
  // number (as -thread_select and -thread_list give it) is its index + 1.
  const std::vector<uint32_t>& threads() const { return threads_; }
  uint32_t thread_number(uint32_t thread_id) const;
  // What a plugin's data says a thread is; known once the events are read.
  using ThreadName = analysis::ThreadName;
  const ThreadName* thread_name(uint32_t thread_id) const {
    const auto it = thread_names_.find(thread_id);
    return it == thread_names_.end() ? nullptr : &it->second;
  }
  // Generated code its decoders described (describe_code): known once the
  // events are read.
  const DescribedCodeTable& described_code() const { return described_code_; }
  // Collection start on the events' clock (the first sample point; else 0).
  uint64_t start_ns() const { return samples_.start_ns(); }

  // The artificial function an artificial stack id stands for.
  // An id in the artificial or traced-call range that no decoder declared
  // comes from a damaged file: it names <Unknown>.
  const std::string& artificial_function(uint64_t stack_id) const {
    static const std::string unknown = "<Unknown>";
    const uint64_t index = stack_id - kArtificialStackBase;
    return index < artificial_functions_.size() ? artificial_functions_[index] : unknown;
  }

  // A traced call's stack id: the recorded stack under it, and the
  // function called.
  struct TracedCall {
    uint64_t stack_id;
    std::string function;
  };
  const TracedCall& traced_call(uint64_t stack_id) const {
    static const TracedCall unknown{0, "<Unknown>"};
    const uint64_t index = stack_id - kTracedCallStackBase;
    return index < traced_calls_.size() ? traced_calls_[index] : unknown;
  }
  // The recorded stack an event's stack id stands on (itself, or a traced call's).
  uint64_t recorded_stack(uint64_t stack_id) const {
    return is_traced_call_stack(stack_id) ? traced_call(stack_id).stack_id : stack_id;
  }

  using EventVisitor = std::function<void(const DataFile&, const lumen_event&)>;
  // What decoders draw on timelines beside their events (lumen_span, and
  // levels: a quantity of the process from a time on).
  struct TimelineVisitor {
    std::function<void(const DataFile&, const lumen_span&)> span;
    std::function<void(const DataFile&, const char* name, lumen_metric_unit unit, uint64_t time_ns, int64_t value)>
        level;
  };
  // Decodes every event of every data file, in file order; `timeline`, when
  // given, receives the spans and levels too (decoders skip them otherwise).
  void for_each_event(const EventVisitor& visit, const TimelineVisitor* timeline = nullptr) const;
  // Decodes every event of one of data_files(), in file order.
  // `stitched`, when given, receives the stitches the decoder declares.
  using StitchVisitor = std::function<void(const DataFile&, const lumen_stitch&)>;
  void for_each_event_in(const DataFile& file, const EventVisitor& visit, const StitchVisitor* stitched = nullptr,
                         const TimelineVisitor* timeline = nullptr) const;

  // Whether a file's blocks may be decoded apart, on several threads: its
  // plugin says its decoder keeps nothing across records
  // (lumen_analysis_descriptor.decodes_in_parts).
  bool decodes_blocks_apart(const DataFile& file) const;
  // Decodes the blocks [first, end) of file.block_offsets, in file order,
  // with the part's own ids for artificial and traced-call stacks (`ids`).
  // Safe on several threads at once, each with its own part and ids.
  // A plugin that merges its parts' decoder states (decoder_merge) gets
  // none ended here: the part's state is left in `kept` for finish_parts.
  void for_each_event_in_blocks(const DataFile& file, size_t first, size_t end, const EventVisitor& visit,
                                PartStackIds& ids, DecoderState* kept = nullptr) const;
  // Merges the kept states of a file's parts, in file order, and ends the
  // merged one with a sink of the experiment's own ids (after every part's
  // ids were adopted): what the decoder emits then is the whole file's.
  void finish_parts(const DataFile& file, std::vector<DecoderState>& states, const EventVisitor& visit) const;
  // Gives a part's ids the experiment's, as if its events were decoded now
  // in file order: adopting the parts of a file in order numbers every
  // stack exactly as one pass over the file does. Not thread-safe.
  PartIdMap adopt_part_ids(const PartStackIds& ids) const;
  // One id of a part as the experiment's, the part's decoding still under
  // way (its id tables hold every id it gave so far). Not thread-safe.
  uint64_t adopt_part_id(const PartStackIds& ids, uint64_t stack_id) const;

  // The blocks of `file` whose events may lie in [from_ns, to_ns] (this
  // experiment's clock), as runs [first, end) in file order, and how many
  // events the others hold: by an index of each block's first and last
  // event, made on first use (one pass). Nothing for a file whose blocks
  // cannot each be decoded alone (see decodes_blocks_apart; a plugin that
  // merges its parts' states). Not thread-safe.
  struct BlocksNear {
    std::vector<std::pair<size_t, size_t>> runs;
    uint64_t events_elsewhere = 0;
    uint64_t events_with_cpu_elsewhere = 0;
  };
  std::optional<BlocksNear> blocks_near(const DataFile& file, uint64_t from_ns, uint64_t to_ns) const;
  // Visits the events of those blocks, in file order, with the stack ids a
  // whole pass gives them (the caller still tests each event's time).
  // False, visiting nothing, where blocks_near has nothing.
  bool for_each_event_near(const DataFile& file, uint64_t from_ns, uint64_t to_ns, const EventVisitor& visit) const;

 private:
  // Walks the file's block headers: its threads, and what is damaged (a
  // warning). False when it cannot be read at all (it is left out).
  bool survey(DataFile& file);
  // The tables stack ids a decoder asks for are numbered in, the experiment's own.
  template <typename Tables>
  Tables own_ids() const;

  std::filesystem::path path_;
  YAML::Node header_;
  std::vector<YAML::Node> log_;
  StackStore stacks_;
  LoadObjectMap loadobjects_;
  std::vector<DataFile> data_files_;
  int64_t clock_shift_ns_ = 0;
  std::vector<std::string> warnings_;
  std::vector<std::string> missing_data_;  // plugins whose data file is gone
  SampleTable samples_;
  std::vector<uint32_t> threads_;
  mutable std::vector<std::string> artificial_functions_;  // by id - kArtificialStackBase
  mutable std::vector<TracedCall> traced_calls_;            // by id - kTracedCallStackBase
  mutable std::map<std::pair<uint64_t, std::string>, uint64_t> traced_call_ids_;
  mutable std::map<uint32_t, ThreadName> thread_names_;
  mutable DescribedCodeTable described_code_;
  // Each block's earliest and latest event (for_each_event_near), by file.
  struct BlockTimes {
    uint64_t first_ns = UINT64_MAX;
    uint64_t last_ns = 0;
    uint64_t events = 0;
    uint64_t events_with_cpu = 0;
  };
  const std::vector<BlockTimes>& block_times(const DataFile& file) const;
  mutable std::map<const DataFile*, std::vector<BlockTimes>> block_times_;
};

}  // namespace lumen::analysis
