#include "request_table.h"

#include <memory>
#include <mutex>

namespace lumen::mpi {

namespace {

// Open addressing with linear probing, keyed by the handle's bits (0 marks
// a free slot: no MPI request handle is 0 bits); grown, never shrunk, at
// half full. No allocation per request: a window of nonblocking receives
// costs a probe each, where a node-based map allocated and freed one.
struct Slot {
  uint64_t handle = 0;
  TrackedRequest request;
};

class Table {
 public:
  void put(uint64_t handle, const TrackedRequest& request) {
    if (handle == 0) return;
    if (2 * (count_ + 1) > capacity_) grow();
    Slot& slot = slots_[probe(handle)];
    if (slot.handle == 0) ++count_;
    slot.handle = handle;
    slot.request = request;
  }
  // The slot holding `handle`, or nullptr.
  Slot* find(uint64_t handle) {
    if (handle == 0 || capacity_ == 0) return nullptr;
    Slot& slot = slots_[probe(handle)];
    return slot.handle == handle ? &slot : nullptr;
  }
  // Empties `slot`, moving back the entries its probe sequence passed over.
  void erase(Slot* slot) {
    size_t hole = static_cast<size_t>(slot - slots_.get());
    const size_t mask = capacity_ - 1;
    for (size_t next = (hole + 1) & mask; slots_[next].handle != 0; next = (next + 1) & mask) {
      const size_t home = home_of(slots_[next].handle);
      // Moved back when its home does not lie in (hole, next].
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        slots_[hole] = slots_[next];
        hole = next;
      }
    }
    slots_[hole].handle = 0;
    --count_;
  }

 private:
  size_t home_of(uint64_t handle) const {
    return static_cast<size_t>((handle * 0x9E3779B97F4A7C15ull) >> 32) & (capacity_ - 1);
  }
  // The slot of `handle`, or the free slot where it would go.
  size_t probe(uint64_t handle) const {
    size_t i = home_of(handle);
    while (slots_[i].handle != 0 && slots_[i].handle != handle) i = (i + 1) & (capacity_ - 1);
    return i;
  }
  void grow() {
    std::unique_ptr<Slot[]> old = std::move(slots_);
    const size_t old_capacity = capacity_;
    capacity_ = capacity_ == 0 ? 256 : 2 * capacity_;
    slots_ = std::make_unique<Slot[]>(capacity_);
    count_ = 0;
    for (size_t i = 0; i < old_capacity; ++i)
      if (old[i].handle != 0) put(old[i].handle, old[i].request);
  }

  std::unique_ptr<Slot[]> slots_;
  size_t capacity_ = 0;  // a power of two
  size_t count_ = 0;
};

std::mutex g_mutex;
// Never destroyed: wrappers may run during exit, after static destructors.
Table& table() {
  static auto* requests = new Table;
  return *requests;
}

std::optional<TrackedRequest> complete_locked(uint64_t handle) {
  Slot* slot = table().find(handle);
  if (slot == nullptr) return std::nullopt;
  const TrackedRequest request = slot->request;
  if (!request.persistent) table().erase(slot);
  return request;
}

}  // namespace

void track_request(uint64_t handle, const TrackedRequest& request) {
  std::lock_guard lock(g_mutex);
  table().put(handle, request);
}

std::optional<TrackedRequest> find_request(uint64_t handle) {
  std::lock_guard lock(g_mutex);
  const Slot* slot = table().find(handle);
  if (slot == nullptr) return std::nullopt;
  return slot->request;
}

std::optional<TrackedRequest> complete_request(uint64_t handle) {
  std::lock_guard lock(g_mutex);
  return complete_locked(handle);
}

void complete_requests(const uint64_t* handles, size_t count, std::optional<TrackedRequest>* completed) {
  std::lock_guard lock(g_mutex);
  for (size_t i = 0; i < count; ++i) completed[i] = complete_locked(handles[i]);
}

void forget_request(uint64_t handle) {
  std::lock_guard lock(g_mutex);
  if (Slot* slot = table().find(handle)) table().erase(slot);
}

}  // namespace lumen::mpi
