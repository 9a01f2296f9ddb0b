// Decoding an experiment's data files through their plugins' decoders: the
// whole file in one pass, or parts of it apart (on several threads), with
// the stack ids decoders ask for numbered as one pass would number them.
#include <lumen/record_format.h>

#include <algorithm>

#include "data_file_reader.h"
#include "experiment.h"
#include "format_error.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

namespace {

// Where a decoding's artificial functions and traced calls are numbered.
struct StackIdTables {
  std::vector<std::string>& artificial;
  std::map<std::pair<uint64_t, std::string>, uint64_t>& traced_index;
  std::function<void(uint64_t stack_id, const char* function)> add_traced;
  size_t (*traced_count)(const void* owner);
  const void* owner;
};

struct SinkContext {
  const DataFile* file;
  const Experiment::EventVisitor* visit;
  const Experiment::StitchVisitor* stitched;
  StackIdTables* ids;
};

lumen_event_sink make_sink(SinkContext& context) {
  return lumen_event_sink{&context,
                          [](void* opaque, const lumen_event* event) {
                            auto* c = static_cast<SinkContext*>(opaque);
                            (*c->visit)(*c->file, *event);
                          },
                          [](void* opaque, const char* function) -> uint64_t {
                            auto& names = static_cast<SinkContext*>(opaque)->ids->artificial;
                            auto found = std::find(names.begin(), names.end(), function);
                            if (found == names.end()) found = names.insert(names.end(), function);
                            return kArtificialStackBase + static_cast<uint64_t>(found - names.begin());
                          },
                          [](void* opaque, const lumen_stitch* stitch) {
                            auto* c = static_cast<SinkContext*>(opaque);
                            if (c->stitched != nullptr && stitch != nullptr) (*c->stitched)(*c->file, *stitch);
                          },
                          [](void* opaque, uint64_t stack_id, const char* function) -> uint64_t {
                            StackIdTables& t = *static_cast<SinkContext*>(opaque)->ids;
                            if (function == nullptr || is_artificial_stack(stack_id) ||
                                is_traced_call_stack(stack_id))
                              return stack_id;
                            const auto [it, inserted] = t.traced_index.try_emplace(
                                std::make_pair(stack_id, std::string(function)),
                                kTracedCallStackBase + t.traced_count(t.owner));
                            if (inserted) t.add_traced(stack_id, function);
                            return it->second;
                          }};
}

// Runs `read` (which feeds records to `record`) through the file's decoder.
void decode(const fs::path& data_path, const DataFile& file, SinkContext& context,
            const std::function<void(const std::function<void(const RawRecord&)>&)>& read) {
  const lumen_event_sink sink = make_sink(context);
  const lumen_analysis_descriptor& d = *file.half->descriptor;
  void* state = d.decoder_begin ? d.decoder_begin(file.decoder_context) : file.decoder_context;
  char error[256] = "";
  try {
    read([&](const RawRecord& record) {
      if (d.decode(state, record.kind, record.payload, record.payload_bytes, &sink, error, sizeof error) != 0)
        throw FormatError(data_path.string(), record.offset, error);
    });
  } catch (...) {
    if (d.decoder_end) d.decoder_end(state, nullptr, error, sizeof error);
    throw;
  }
  if (d.decoder_end && d.decoder_end(state, &sink, error, sizeof error) != 0)
    throw FormatError(data_path.string() + ": " + error);
}

}  // namespace

void Experiment::for_each_event(const EventVisitor& visit) const {
  for (const DataFile& file : data_files_) for_each_event_in(file, visit);
}

void Experiment::for_each_event_in(const DataFile& file, const EventVisitor& visit,
                                   const StitchVisitor* stitched) const {
  const fs::path data_path = path_ / file.name;
  if (!fs::exists(fs::symlink_status(data_path))) return;
  StackIdTables ids{artificial_functions_, traced_call_ids_,
                    [this](uint64_t stack_id, const char* function) { traced_calls_.push_back({stack_id, function}); },
                    [](const void* owner) { return static_cast<const Experiment*>(owner)->traced_calls_.size(); },
                    this};
  SinkContext context{&file, &visit, stitched, &ids};
  decode(data_path, file, context, [&](const std::function<void(const RawRecord&)>& record) {
    read_data_file(data_path, record, file.readable_bytes);
  });
}

bool Experiment::decodes_blocks_apart(const DataFile& file) const {
  const lumen_analysis_descriptor& d = *file.half->descriptor;
  return d.decoder_end == nullptr && d.declares_stitches == 0;
}

void Experiment::for_each_event_in_blocks(const DataFile& file, size_t first, size_t end, const EventVisitor& visit,
                                          PartStackIds& part) const {
  const fs::path data_path = path_ / file.name;
  end = std::min(end, file.block_offsets.size());
  if (first >= end) return;
  StackIdTables ids{part.artificial, part.traced_index,
                    [&part](uint64_t stack_id, const char* function) { part.traced.push_back({stack_id, function}); },
                    [](const void* owner) { return static_cast<const PartStackIds*>(owner)->traced.size(); }, &part};
  SinkContext context{&file, &visit, nullptr, &ids};
  decode(data_path, file, context, [&](const std::function<void(const RawRecord&)>& record) {
    read_data_blocks(data_path, std::span(file.block_offsets).subspan(first, end - first), record);
  });
}

PartIdMap Experiment::adopt_part_ids(const PartStackIds& part) const {
  std::vector<uint64_t> artificial;
  for (const std::string& name : part.artificial) {
    auto found = std::find(artificial_functions_.begin(), artificial_functions_.end(), name);
    if (found == artificial_functions_.end()) found = artificial_functions_.insert(artificial_functions_.end(), name);
    artificial.push_back(kArtificialStackBase + static_cast<uint64_t>(found - artificial_functions_.begin()));
  }
  std::vector<uint64_t> traced;
  for (const PartStackIds::TracedCall& call : part.traced) {
    const auto [it, inserted] = traced_call_ids_.try_emplace(std::make_pair(call.stack_id, call.function),
                                                             kTracedCallStackBase + traced_calls_.size());
    if (inserted) traced_calls_.push_back({call.stack_id, call.function});
    traced.push_back(it->second);
  }
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
