// Nonblocking and persistent requests the wrappers must recognize later:
// receives (a Wait or Test that completes one completes a receive) and
// persistent sends (each MPI_Start of one starts a send). Keyed by the
// request handle's bits. Used only under the runtime's re-entry guard, from
// ordinary (non-signal) context; a mutex serves MPI_THREAD_MULTIPLE programs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace lumen::mpi {

struct TrackedRequest {
  bool receive = false;     // else a persistent send
  bool persistent = false;
  uint64_t communicator = 0;
  uint64_t datatype = 0;    // receive: the type its count is in
  uint64_t type_bytes = 0;  // receive: size of one element
  uint64_t bytes = 0;       // persistent send: count x type size
  int32_t peer = -1;        // persistent send: world rank of the destination
  int32_t tag = -1;
};

void track_request(uint64_t handle, const TrackedRequest& request);
std::optional<TrackedRequest> find_request(uint64_t handle);
// A completed request: forgotten unless persistent (returned either way).
std::optional<TrackedRequest> complete_request(uint64_t handle);
// complete_request of each of `count` handles, under one lock.
void complete_requests(const uint64_t* handles, size_t count, std::optional<TrackedRequest>* completed);
void forget_request(uint64_t handle);

}  // namespace lumen::mpi
