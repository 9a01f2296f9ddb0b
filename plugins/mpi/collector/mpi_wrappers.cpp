// The MPI wrappers, generated from mpi_functions.def: each MPI_X forwards to
// PMPI_X unchanged (arguments, result) and, when the call is traced, records
// its time, the caller's stack and what its kind's hooks learn.
//
// This object never names the MPI library as needed: every PMPI_ symbol (and
// Open MPI's predefined communicator) is a weak reference, bound by the
// dynamic loader to the library the program links. Preloaded into a process
// without MPI (mpirun, its daemons, any descendant), it is inert.
#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mpi_call_hooks.h"

#define LUMEN_MPI_STRING2(x) #x
#define LUMEN_MPI_STRING(x) LUMEN_MPI_STRING2(x)
// Expands "(a, b)" to ", a, b" and "()" to nothing: the hooks' arguments
// after the hook state.
#define LUMEN_MPI_AFTER_STATE(...) __VA_OPT__(, ) __VA_ARGS__

// Every PMPI_ function the table names is a weak reference.
#define LUMEN_MPI_CALL(name, kind, params, args) _Pragma(LUMEN_MPI_STRING(weak PMPI_##name))
#include "../mpi_functions.def"
#undef LUMEN_MPI_CALL
// The PMPI_ functions the hooks call beyond the table's.
#pragma weak PMPI_Initialized
#pragma weak PMPI_Finalized
#pragma weak PMPI_Get_library_version
#ifdef OPEN_MPI
#pragma weak ompi_mpi_comm_world
#endif

// Local names start with lumen_ so that no MPI parameter name can hide them.
// One guard after the real call covers the after() hook and the record;
// before() takes one of its own only for kinds whose before() allocates.
#define LUMEN_MPI_CALL(name, kind, params, args)                                                  \
  LUMEN_EXPORT int MPI_##name params {                                                             \
    lumen::mpi::CallState lumen_call;                                                              \
    if (!lumen::mpi::open_call(lumen_call, lumen::mpi::Function::k##name)) return PMPI_##name args; \
    lumen::mpi::HookState lumen_hooks(lumen_call);                                                 \
    bool lumen_hooked = true;                                                                      \
    if constexpr (lumen::mpi::kBeforeNeedsGuard<lumen::mpi::kinds::kind>) {                        \
      const lumen::TraceGuard lumen_guard(lumen::mpi::runtime());                                  \
      lumen_hooked = static_cast<bool>(lumen_guard);                                               \
      if (lumen_hooked) before(lumen::mpi::kinds::kind{}, lumen_hooks LUMEN_MPI_AFTER_STATE args); \
    } else {                                                                                       \
      before(lumen::mpi::kinds::kind{}, lumen_hooks LUMEN_MPI_AFTER_STATE args);                  \
    }                                                                                              \
    const int lumen_result = PMPI_##name args;                                                     \
    const int lumen_errno = errno;                                                                 \
    lumen_call.call.result = lumen_result;                                                         \
    {                                                                                              \
      const lumen::TraceGuard lumen_guard(lumen::mpi::runtime());                                  \
      if (lumen_guard && lumen_hooked) after(lumen::mpi::kinds::kind{}, lumen_hooks LUMEN_MPI_AFTER_STATE args); \
      lumen::mpi::close_call(lumen_call, lumen_guard);                                             \
    }                                                                                              \
    errno = lumen_errno;                                                                           \
    return lumen_result;                                                                           \
  }
#include "../mpi_functions.def"
#undef LUMEN_MPI_CALL

namespace lumen::mpi {

namespace {

MPI_Group g_world_group;  // valid once g_have_world_group
bool g_have_world_group = false;
bool g_finalized = false;

// The first line of the library's version string (MPICH's has several).
void library_version(char* text, size_t size) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  if (PMPI_Get_library_version == nullptr || PMPI_Get_library_version(version, &length) != MPI_SUCCESS)
    std::snprintf(version, sizeof version, "MPI");
  size_t end = 0;
  while (version[end] != '\0' && version[end] != '\n' && end + 1 < size) ++end;
  while (end > 0 && (version[end - 1] == ' ' || version[end - 1] == ',' || version[end - 1] == '\t')) --end;
  std::memcpy(text, version, end);
  text[end] = '\0';
}

}  // namespace

MpiLibrary mpi_library() {
  if (PMPI_Init == nullptr || PMPI_Comm_rank == nullptr) return MpiLibrary::kNone;
  // Open MPI's predefined communicator tells the two ABIs apart: a variant
  // must not trace (nor query) an MPI whose handles it would misread.
#ifdef OPEN_MPI
  return &ompi_mpi_comm_world != nullptr ? MpiLibrary::kOwn : MpiLibrary::kOther;
#else
  return dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world") == nullptr ? MpiLibrary::kOwn : MpiLibrary::kOther;
#endif
}

bool finalized() { return g_finalized; }
void set_finalized() { g_finalized = true; }

void process_started(int thread_level) {
  int rank = -1;
  int size = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  g_have_world_group = PMPI_Comm_group(MPI_COMM_WORLD, &g_world_group) == MPI_SUCCESS;
  char library[256];
  library_version(library, sizeof library);
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  int host_length = 0;
  PMPI_Get_processor_name(host, &host_length);
  set_process(rank, size, static_cast<uint32_t>(thread_level), library, host);
  align_clock(kClockAtInit);
}

int32_t world_rank_of(MPI_Comm comm, int rank) {
  if (rank < 0) return -1;
  if (comm == MPI_COMM_WORLD) return rank;
  if (g_finalized || !g_have_world_group) return -1;
  int inter = 0;
  MPI_Group group;
  PMPI_Comm_test_inter(comm, &inter);
  if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) != MPI_SUCCESS) return -1;
  int world = MPI_UNDEFINED;
  PMPI_Group_translate_ranks(group, 1, &rank, g_world_group, &world);
  PMPI_Group_free(&group);
  return world == MPI_UNDEFINED ? -1 : world;
}

uint64_t type_bytes(MPI_Datatype type) {
  int size = 0;
  if (g_finalized || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0) return 0;
  return static_cast<uint64_t>(size);
}

void count_send(HookState& s, const void*, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (dest == MPI_PROC_NULL) return;
  const uint64_t bytes = count > 0 ? static_cast<uint64_t>(count) * type_bytes(type) : 0;
  add_message(s.call, kMessageSent, bytes, world_rank_of(comm, dest), tag, handle_bits(comm));
}

void count_receive(HookState& s, const MPI_Status* status, MPI_Datatype type, uint64_t element_bytes, MPI_Comm comm) {
  if (status->MPI_SOURCE == MPI_PROC_NULL) return;
  int cancelled = 0;
  if (PMPI_Test_cancelled(status, &cancelled) == MPI_SUCCESS && cancelled) return;
  int count = 0;
  if (PMPI_Get_count(status, type, &count) != MPI_SUCCESS || count == MPI_UNDEFINED || count < 0) count = 0;
  add_message(s.call, kMessageReceived, static_cast<uint64_t>(count) * element_bytes,
              world_rank_of(comm, status->MPI_SOURCE), status->MPI_TAG, handle_bits(comm));
}

void count_completion(HookState& s, uint64_t bits, const MPI_Status* status) {
  const std::optional<TrackedRequest> request = complete_request(bits);
  if (!request || !request->receive) return;
  count_receive(s, status, handle_from_bits<MPI_Datatype>(request->datatype), request->type_bytes,
                handle_from_bits<MPI_Comm>(request->communicator));
}

void count_started(HookState& s, uint64_t bits) {
  const std::optional<TrackedRequest> request = find_request(bits);
  if (!request || request->receive) return;
  add_message(s.call, kMessageSent, request->bytes, request->peer, request->tag, request->communicator);
}

void remember_requests(HookState& s, int count, const MPI_Request* requests) {
  uint64_t* bits = s.request_bits.resize(count > 0 ? static_cast<size_t>(count) : 0);
  for (int i = 0; i < count; ++i) bits[i] = handle_bits(requests[i]);
}

MPI_Status* lend_statuses(HookState& s, int count, MPI_Status* statuses) {
  if (statuses != MPI_STATUSES_IGNORE) return statuses;
  return s.statuses.resize(count > 0 ? static_cast<size_t>(count) : 1);
}

void track_receive(MPI_Request request, MPI_Datatype type, int source, int tag, MPI_Comm comm, bool persistent) {
  TrackedRequest tracked;
  tracked.receive = true;
  tracked.persistent = persistent;
  tracked.communicator = handle_bits(comm);
  tracked.datatype = handle_bits(type);
  tracked.type_bytes = type_bytes(type);
  tracked.peer = world_rank_of(comm, source);
  tracked.tag = tag;
  track_request(handle_bits(request), tracked);
}

void track_persistent_send(MPI_Request request, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (dest == MPI_PROC_NULL) return;
  TrackedRequest tracked;
  tracked.persistent = true;
  tracked.communicator = handle_bits(comm);
  tracked.bytes = count > 0 ? static_cast<uint64_t>(count) * type_bytes(type) : 0;
  tracked.peer = world_rank_of(comm, dest);
  tracked.tag = tag;
  track_request(handle_bits(request), tracked);
}

}  // namespace lumen::mpi
