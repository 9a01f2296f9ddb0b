// Which object was mapped where, and when: the experiment's "loadobjects"
// file turned into intervals, so that a PC resolves against what was loaded
// when its event happened. Time is cut into epochs at every load or unload.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lumen::analysis {

struct MappedObject {
  std::string path;
  uint64_t load_bias = 0;
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t loaded_ns = 0;
  uint64_t unloaded_ns = UINT64_MAX;
};

class LoadObjectMap {
 public:
  void load(const std::filesystem::path& file);

  // The epoch (index of the map's state) in force at `time_ns`.
  uint32_t epoch_at(uint64_t time_ns) const;

  // The object holding `pc` in `epoch`; failing that, the most recent object
  // that ever held it (an event inside a library's constructor precedes the
  // record of its load).
  const MappedObject* find(uint64_t pc, uint32_t epoch) const;

  uint32_t latest_epoch() const { return static_cast<uint32_t>(change_times_.size()); }
  const std::vector<MappedObject>& objects() const { return objects_; }

 private:
  std::vector<MappedObject> objects_;
  std::vector<uint64_t> change_times_;  // sorted; epoch e starts at change_times_[e-1]
  uint64_t first_time_ = 0;
};

}  // namespace lumen::analysis
