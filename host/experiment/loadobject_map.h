// Which object was mapped where, and when: the experiment's "loadobjects"
// file turned into intervals, so that a PC resolves against what was loaded
// when its event happened. Time is cut into epochs at every load or unload.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "archive_index.h"

namespace lumen::analysis {

struct MappedObject {
  std::string path;
  uint64_t load_bias = 0;
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t loaded_ns = 0;
  uint64_t unloaded_ns = UINT64_MAX;
  std::string symbol_file;  // where to read its symbols: `path` or its archived copy; empty: nowhere
  RecordedFile recorded;  // by the runtime; unknown in older experiments
  // Why its code cannot be named ("changed since recording"); empty when it can.
  std::string unnamed_because;
};

struct RawRecord;

// Code the program generated and described with collector_func_load, or
// the kernel's (er_kernel).
struct DynamicFunction {
  std::string name;
  std::string object;  // empty: the program's generated code
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t loaded_ns = 0;
  uint64_t unloaded_ns = UINT64_MAX;
};

class LoadObjectMap {
 public:
  void load(const std::filesystem::path& file);

  // Chooses where each object's symbols are read (archive_index.h's
  // symbol_file_for): its archived copy in archives/ of `experiment` when
  // there is one, else the file at its path if it is still the one recorded;
  // an object with neither is left unnamed, saying why.
  void use_archive(const std::filesystem::path& experiment);

  // Reads the symbols of every object recorded as `object_path` from `copy`
  // (the vDSO's image, which the runtime saved in the experiment).
  void use_copy(const std::string& object_path, const std::filesystem::path& copy);

  // The epoch (index of the map's state) in force at `time_ns`.
  uint32_t epoch_at(uint64_t time_ns) const {
    // Most events come after the last dlopen or dlclose: no search for them.
    if (change_times_.empty() || time_ns >= change_times_.back()) return static_cast<uint32_t>(change_times_.size());
    return epoch_before_last(time_ns);
  }

  // The object holding `pc` in `epoch`; failing that, the most recent object
  // that ever held it (an event inside a library's constructor precedes the
  // record of its load).
  const MappedObject* find(uint64_t pc, uint32_t epoch) const;

  // The generated function holding `pc`, the latest described if several.
  const DynamicFunction* find_dynamic(uint64_t pc) const;

  uint32_t latest_epoch() const { return static_cast<uint32_t>(change_times_.size()); }
  const std::vector<MappedObject>& objects() const { return objects_; }

 private:
  void read_dynamic_code(const std::filesystem::path& file, const RawRecord& record);
  uint32_t epoch_before_last(uint64_t time_ns) const;  // epoch_at's search

  std::vector<MappedObject> objects_;
  std::vector<DynamicFunction> dynamic_;
  std::vector<uint64_t> change_times_;  // sorted; epoch e starts at change_times_[e-1]
  uint64_t first_time_ = 0;
};

}  // namespace lumen::analysis
