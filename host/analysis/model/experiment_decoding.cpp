// Decoding an experiment's data files through their plugins' decoders: the
// whole file in one pass, or parts of it apart (on several threads), with
// the stack ids decoders ask for numbered as one pass would number them.
#include <lumen/record_format.h>

#include <algorithm>

#include "data_file_reader.h"
#include "experiment.h"
#include "format_error.h"
#include "sdk_compatibility.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

namespace {

// Where a decoding's artificial functions and traced calls are numbered,
// and where the threads it names go.
struct StackIdTables {
  std::vector<std::string>& artificial;
  std::map<std::pair<uint64_t, std::string>, uint64_t>& traced_index;
  std::function<void(uint64_t stack_id, const char* function)> add_traced;
  size_t (*traced_count)(const void* owner);
  const void* owner;
  std::function<void(uint32_t thread_id, Experiment::ThreadName name)> name_thread;
  std::function<void(DescribedCode code)> describe_code;
};

struct SinkContext {
  const DataFile* file;
  const Experiment::EventVisitor* visit;
  const Experiment::StitchVisitor* stitched;
  StackIdTables* ids;
  const Experiment::TimelineVisitor* timeline;
  uint32_t record_thread = 0;  // the block's thread of the record being decoded
};

lumen_event_sink make_sink(SinkContext& context) {
  lumen_event_sink sink{};
  sink.size = sizeof sink;
  sink.context = &context;
  sink.emit = [](void* opaque, const lumen_event* event) {
    auto* c = static_cast<SinkContext*>(opaque);
    (*c->visit)(*c->file, *event);
  };
  sink.artificial_stack = [](void* opaque, const char* function) -> uint64_t {
    auto& names = static_cast<SinkContext*>(opaque)->ids->artificial;
    auto found = std::find(names.begin(), names.end(), function);
    if (found == names.end()) found = names.insert(names.end(), function);
    return kArtificialStackBase + static_cast<uint64_t>(found - names.begin());
  };
  sink.traced_call_stack = [](void* opaque, uint64_t stack_id, const char* function) -> uint64_t {
    StackIdTables& t = *static_cast<SinkContext*>(opaque)->ids;
    if (function == nullptr || is_artificial_stack(stack_id) || is_traced_call_stack(stack_id)) return stack_id;
    const auto [it, inserted] = t.traced_index.try_emplace(std::make_pair(stack_id, std::string(function)),
                                                           kTracedCallStackBase + t.traced_count(t.owner));
    if (inserted) t.add_traced(stack_id, function);
    return it->second;
  };
  sink.stitch = [](void* opaque, const lumen_stitch* stitch) {
    auto* c = static_cast<SinkContext*>(opaque);
    if (c->stitched != nullptr && stitch != nullptr) (*c->stitched)(*c->file, *stitch);
  };
  sink.name_thread = [](void* opaque, uint32_t thread_id, const char* name, int role) {
    if (name == nullptr) return;
    static_cast<SinkContext*>(opaque)->ids->name_thread(
        thread_id, {std::string(name).substr(0, 256), role == LUMEN_THREAD_RUNTIME_SYSTEM});
  };
  // A description as this lumen knows it: the members its size covers.
  sink.describe_code = [](void* opaque, const lumen_code_description* code) {
    if (code == nullptr) return;
    if (auto copy = DescribedCodeTable::copy_of(metadata::read_sized(*code)))
      static_cast<SinkContext*>(opaque)->ids->describe_code(std::move(*copy));
  };
  sink.record_thread = [](void* opaque) { return static_cast<SinkContext*>(opaque)->record_thread; };
  const Experiment::TimelineVisitor* timeline = context.timeline;
  if (timeline != nullptr && timeline->span)
    sink.span = [](void* opaque, const lumen_span* span) {
      auto* c = static_cast<SinkContext*>(opaque);
      if (span != nullptr && span->end_ns >= span->begin_ns) c->timeline->span(*c->file, *span);
    };
  if (timeline != nullptr && timeline->level)
    sink.level = [](void* opaque, const char* name, lumen_metric_unit unit, uint64_t time_ns, int64_t value) {
      auto* c = static_cast<SinkContext*>(opaque);
      c->timeline->level(*c->file, name != nullptr ? name : "", unit, time_ns, value);
    };
  return sink;
}

// Runs `read` (which feeds records to `record`) through the file's decoder;
// the state is ended, or left in `kept` when given.
void decode(const fs::path& data_path, const DataFile& file, SinkContext& context,
            const std::function<void(const std::function<void(const RawRecord&)>&)>& read,
            DecoderState* kept = nullptr) {
  const lumen_event_sink sink = make_sink(context);
  const lumen_analysis_descriptor& d = *file.half->descriptor;
  void* state = d.decoder_begin ? d.decoder_begin(file.decoder_context) : file.decoder_context;
  char error[256] = "";
  try {
    read([&](const RawRecord& record) {
      context.record_thread = record.block_thread_id;
      if (d.decode(state, record.kind, record.payload, record.payload_bytes, &sink, error, sizeof error) != 0)
        throw FormatError(data_path.string(), record.offset, error);
    });
  } catch (...) {
    if (d.decoder_end) d.decoder_end(state, nullptr, error, sizeof error);
    throw;
  }
  if (kept != nullptr) {
    *kept = DecoderState(state, DecoderStateEnd{&d});
    return;
  }
  if (d.decoder_end && d.decoder_end(state, &sink, error, sizeof error) != 0)
    throw FormatError(data_path.string() + ": " + error);
}

}  // namespace

// The experiment's own tables (decoding in one pass, or a merged state's end).
template <typename Tables>
Tables Experiment::own_ids() const {
  return Tables{artificial_functions_, traced_call_ids_,
                [this](uint64_t stack_id, const char* function) { traced_calls_.push_back({stack_id, function}); },
                [](const void* owner) { return static_cast<const Experiment*>(owner)->traced_calls_.size(); }, this,
                [this](uint32_t thread_id, ThreadName name) { thread_names_[thread_id] = std::move(name); },
                [this](DescribedCode code) { described_code_.add(std::move(code)); }};
}

void Experiment::for_each_event(const EventVisitor& visit, const TimelineVisitor* timeline) const {
  for (const DataFile& file : data_files_) for_each_event_in(file, visit, nullptr, timeline);
}

void Experiment::for_each_event_in(const DataFile& file, const EventVisitor& visit, const StitchVisitor* stitched,
                                   const TimelineVisitor* timeline) const {
  const fs::path data_path = path_ / file.name;
  if (!fs::exists(fs::symlink_status(data_path))) return;
  StackIdTables ids = own_ids<StackIdTables>();
  SinkContext context{&file, &visit, stitched, &ids, timeline};
  decode(data_path, file, context, [&](const std::function<void(const RawRecord&)>& record) {
    read_data_file(data_path, record, file.readable_bytes);
  });
}

bool Experiment::decodes_blocks_apart(const DataFile& file) const {
  const lumen_analysis_descriptor& d = *file.half->descriptor;
  return d.decodes_in_parts != 0;
}

void DecoderStateEnd::operator()(void* state) const {
  char error[64];
  if (descriptor != nullptr && descriptor->decoder_end != nullptr)
    descriptor->decoder_end(state, nullptr, error, sizeof error);
}

void Experiment::for_each_event_in_blocks(const DataFile& file, size_t first, size_t end, const EventVisitor& visit,
                                          PartStackIds& part, DecoderState* kept) const {
  const fs::path data_path = path_ / file.name;
  end = std::min(end, file.block_offsets.size());
  if (first >= end) return;
  StackIdTables ids{part.artificial, part.traced_index,
                    [&part](uint64_t stack_id, const char* function) { part.traced.push_back({stack_id, function}); },
                    [](const void* owner) { return static_cast<const PartStackIds*>(owner)->traced.size(); }, &part,
                    [&part](uint32_t thread_id, ThreadName name) {
                      part.thread_names.push_back({thread_id, std::move(name)});
                    },
                    [&part](DescribedCode code) { part.described_code.push_back(std::move(code)); }};
  SinkContext context{&file, &visit, nullptr, &ids, nullptr};
  decode(data_path, file, context, [&](const std::function<void(const RawRecord&)>& record) {
    read_data_blocks(data_path, std::span(file.block_offsets).subspan(first, end - first), record);
  }, file.half->descriptor->decoder_merge != nullptr ? kept : nullptr);
}

void Experiment::finish_parts(const DataFile& file, std::vector<DecoderState>& states, const EventVisitor& visit) const {
  const lumen_analysis_descriptor& d = *file.half->descriptor;
  if (states.empty() || d.decoder_merge == nullptr) return;
  const fs::path data_path = path_ / file.name;
  char error[256] = "";
  for (size_t i = 1; i < states.size(); ++i) {
    if (d.decoder_merge(states[0].get(), states[i].get(), error, sizeof error) != 0)
      throw FormatError(data_path.string() + ": " + error);
    states[i].reset();
  }
  StackIdTables ids = own_ids<StackIdTables>();
  SinkContext context{&file, &visit, nullptr, &ids, nullptr};
  const lumen_event_sink sink = make_sink(context);
  void* state = states[0].release();
  if (d.decoder_end != nullptr && d.decoder_end(state, &sink, error, sizeof error) != 0)
    throw FormatError(data_path.string() + ": " + error);
}

namespace {

uint64_t adopt_artificial(std::vector<std::string>& functions, const std::string& name) {
  auto found = std::find(functions.begin(), functions.end(), name);
  if (found == functions.end()) found = functions.insert(functions.end(), name);
  return kArtificialStackBase + static_cast<uint64_t>(found - functions.begin());
}

}  // namespace

uint64_t Experiment::adopt_part_id(const PartStackIds& part, uint64_t stack_id) const {
  if (is_artificial_stack(stack_id)) {
    const uint64_t index = stack_id - kArtificialStackBase;
    return index < part.artificial.size() ? adopt_artificial(artificial_functions_, part.artificial[index]) : stack_id;
  }
  if (is_traced_call_stack(stack_id)) {
    const uint64_t index = stack_id - kTracedCallStackBase;
    if (index >= part.traced.size()) return stack_id;
    const PartStackIds::TracedCall& call = part.traced[index];
    const auto [it, inserted] = traced_call_ids_.try_emplace(std::make_pair(call.stack_id, call.function),
                                                             kTracedCallStackBase + traced_calls_.size());
    if (inserted) traced_calls_.push_back({call.stack_id, call.function});
    return it->second;
  }
  return stack_id;
}

PartIdMap Experiment::adopt_part_ids(const PartStackIds& part) const {
  std::vector<uint64_t> artificial;
  for (const std::string& name : part.artificial) artificial.push_back(adopt_artificial(artificial_functions_, name));
  std::vector<uint64_t> traced;
  for (size_t i = 0; i < part.traced.size(); ++i) traced.push_back(adopt_part_id(part, kTracedCallStackBase + i));
  for (const auto& [thread_id, name] : part.thread_names) thread_names_[thread_id] = name;
  for (const DescribedCode& code : part.described_code) described_code_.add(code);
  return PartIdMap(std::move(artificial), std::move(traced));
}

uint64_t PartIdMap::operator()(uint64_t stack_id) const {
  if (is_artificial_stack(stack_id)) {
    const uint64_t index = stack_id - kArtificialStackBase;
    return index < artificial_.size() ? artificial_[index] : stack_id;
  }
  if (is_traced_call_stack(stack_id)) {
    const uint64_t index = stack_id - kTracedCallStackBase;
    return index < traced_.size() ? traced_[index] : stack_id;
  }
  return stack_id;
}

}  // namespace lumen::analysis
