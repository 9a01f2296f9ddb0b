#include "request_table.h"

#include <mutex>
#include <unordered_map>

namespace lumen::mpi {

namespace {

std::mutex g_mutex;
// Never destroyed: wrappers may run during exit, after static destructors.
std::unordered_map<uint64_t, TrackedRequest>& table() {
  static auto* requests = new std::unordered_map<uint64_t, TrackedRequest>;
  return *requests;
}

}  // namespace

void track_request(uint64_t handle, const TrackedRequest& request) {
  std::lock_guard lock(g_mutex);
  table()[handle] = request;
}

std::optional<TrackedRequest> find_request(uint64_t handle) {
  std::lock_guard lock(g_mutex);
  const auto it = table().find(handle);
  if (it == table().end()) return std::nullopt;
  return it->second;
}

std::optional<TrackedRequest> complete_request(uint64_t handle) {
  std::lock_guard lock(g_mutex);
  const auto it = table().find(handle);
  if (it == table().end()) return std::nullopt;
  TrackedRequest request = it->second;
  if (!request.persistent) table().erase(it);
  return request;
}

void forget_request(uint64_t handle) {
  std::lock_guard lock(g_mutex);
  table().erase(handle);
}

}  // namespace lumen::mpi
