#include "loadobject_map.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "archive_index.h"
#include "data_file_reader.h"
#include "format_error.h"
#include "loadobject_identity.h"

namespace lumen::analysis {

void LoadObjectMap::load(const std::filesystem::path& file) {
  if (!std::filesystem::exists(std::filesystem::symlink_status(file))) return;
  struct Change {
    lumen_loadobject_record header;
    std::string path;
    RecordedFile recorded;
  };
  std::vector<Change> changes;
  read_data_file(file, [&](const RawRecord& r) {
    if (r.kind == LUMEN_RECORD_DYNAMIC_CODE) {
      read_dynamic_code(file, r);
      return;
    }
    if (r.kind != LUMEN_RECORD_LOADOBJECT) return;
    Change change;
    if (r.payload_bytes < sizeof change.header) throw FormatError(file.string(), r.offset, "load-object record too short");
    std::memcpy(&change.header, r.payload, sizeof change.header);
    if (sizeof change.header + change.header.path_bytes > r.payload_bytes)
      throw FormatError(file.string(), r.offset, "load-object record does not hold its path");
    change.path.assign(static_cast<const char*>(r.payload) + sizeof change.header, change.header.path_bytes);
    const size_t identity_at = sizeof change.header + change.header.path_bytes;
    if (const auto identity = metadata::read_loadobject_identity(static_cast<const char*>(r.payload) + identity_at,
                                                                 r.payload_bytes - identity_at)) {
      change.recorded.build_id = hex_bytes(identity->build_id, identity->build_id_bytes);
      change.recorded.size = identity->file_size;
      change.recorded.mtime_ns = identity->mtime_ns;
    }
    changes.push_back(std::move(change));
  });
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.header.time_ns < b.header.time_ns; });
  if (!changes.empty()) first_time_ = changes.front().header.time_ns;
  for (const Change& c : changes) {
    const lumen_loadobject_record& h = c.header;
    if (h.time_ns != first_time_ && (change_times_.empty() || change_times_.back() != h.time_ns))
      change_times_.push_back(h.time_ns);
    if (h.event == LUMEN_LOADOBJECT_MAPPED) {
      objects_.push_back({c.path, h.load_bias, h.start, h.end, h.time_ns, UINT64_MAX, c.path, c.recorded, ""});
    } else {
      for (MappedObject& o : objects_)
        if (o.unloaded_ns == UINT64_MAX && o.start == h.start && o.path == c.path) o.unloaded_ns = h.time_ns;
    }
  }
}

void LoadObjectMap::read_dynamic_code(const std::filesystem::path& file, const RawRecord& r) {
  lumen_dynamic_code_record h;
  if (r.payload_bytes < sizeof h) throw FormatError(file.string(), r.offset, "dynamic-code record too short");
  std::memcpy(&h, r.payload, sizeof h);
  if (sizeof h + uint64_t{h.name_bytes} + h.object_bytes > r.payload_bytes)
    throw FormatError(file.string(), r.offset, "dynamic-code record does not hold its name");
  if (h.size == 0) {
    for (DynamicFunction& f : dynamic_)
      if (f.start == h.start && f.unloaded_ns == UINT64_MAX) f.unloaded_ns = h.time_ns;
    return;
  }
  const char* name = static_cast<const char*>(r.payload) + sizeof h;
  if (h.start + h.size < h.start) throw FormatError(file.string(), r.offset, "dynamic-code record wraps the address space");
  dynamic_.push_back({std::string(name, h.name_bytes), std::string(name + h.name_bytes, h.object_bytes), h.start,
                      h.start + h.size, h.time_ns, UINT64_MAX});
}

const DynamicFunction* LoadObjectMap::find_dynamic(uint64_t pc) const {
  const DynamicFunction* latest = nullptr;
  for (const DynamicFunction& f : dynamic_)
    if (pc >= f.start && pc < f.end && (latest == nullptr || f.loaded_ns > latest->loaded_ns)) latest = &f;
  return latest;
}

void LoadObjectMap::use_archive(const std::filesystem::path& experiment) {
  const auto archive = read_archive_index(experiment);
  // A library loaded again and again is examined once.
  std::map<std::pair<std::string, std::string>, SymbolFile> chosen;
  for (MappedObject& o : objects_) {
    const auto key = std::make_pair(o.path, o.recorded.build_id + "/" + std::to_string(o.recorded.mtime_ns));
    auto found = chosen.find(key);
    if (found == chosen.end()) found = chosen.emplace(key, symbol_file_for(o.path, o.recorded, archive)).first;
    o.symbol_file = found->second.file;
    o.unnamed_because = found->second.unnamed_because;
  }
}

void LoadObjectMap::use_copy(const std::string& object_path, const std::filesystem::path& copy) {
  for (MappedObject& o : objects_)
    if (o.path == object_path) {
      o.symbol_file = copy.string();
      o.unnamed_because.clear();
    }
}

uint32_t LoadObjectMap::epoch_before_last(uint64_t time_ns) const {
  return static_cast<uint32_t>(std::upper_bound(change_times_.begin(), change_times_.end(), time_ns) -
                               change_times_.begin());
}

const MappedObject* LoadObjectMap::find(uint64_t pc, uint32_t epoch) const {
  const uint64_t epoch_start = epoch == 0 ? 0 : change_times_[epoch - 1];
  const MappedObject* latest = nullptr;
  for (const MappedObject& o : objects_) {
    if (pc < o.start || pc >= o.end) continue;
    const bool mapped_then = o.loaded_ns <= std::max(epoch_start, first_time_) && o.unloaded_ns > epoch_start;
    if (mapped_then) return &o;
    if (latest == nullptr || o.loaded_ns > latest->loaded_ns) latest = &o;
  }
  return latest;
}

}  // namespace lumen::analysis
