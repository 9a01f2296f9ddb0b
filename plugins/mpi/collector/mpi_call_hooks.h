// What a wrapper learns from a call besides its time, by the call's KIND in
// mpi_functions.def. Each kind has a before() hook, run before the real
// (PMPI_) function, and an after() hook, run after it; both get the call's
// arguments by reference, so that before() can lend the call a status the
// program did not ask for (MPI_STATUS_IGNORE) when the receive's size and
// source are needed. after() hooks, and the before() hooks that allocate
// (kBeforeNeedsGuard), run under the runtime's re-entry guard.
//
// Counting rules (Oracle's): a point-to-point send counts when it is started
// (MPI_Send, MPI_Isend, each MPI_Start of a persistent send); a receive when
// it completes (MPI_Recv, or the Wait/Test that completes an MPI_Irecv or a
// started persistent receive). Its bytes are count x type size for a send as
// the call gives them, and what the status reports for a receive. Messages
// to or from MPI_PROC_NULL carry nothing and do not count.
#pragma once

#include "call_buffer.h"
#include "mpi_handles.h"
#include "mpi_collector.h"
#include "request_table.h"

namespace lumen::mpi {

namespace kinds {
struct Other {};
struct Send {};
struct Recv {};
struct Irecv {};
struct SendInit {};
struct RecvInit {};
struct Sendrecv {};
struct SendrecvReplace {};
struct Start {};
struct Startall {};
struct Wait {};
struct Test {};
struct Waitany {};
struct Testany {};
struct Waitall {};
struct Testall {};
struct Waitsome {};
struct Testsome {};
struct RequestFree {};
struct Init {};
struct Finalize {};
struct Abort {};
}  // namespace kinds

// Whether a kind's before() needs the runtime's re-entry guard: those that
// allocate (remember the requests, lend statuses) or write. The others do
// nothing or lend a status of the hook state, and run without one.
template <typename Kind> inline constexpr bool kBeforeNeedsGuard = true;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::Other> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::Send> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::Recv> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::Irecv> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::SendInit> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::RecvInit> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::Sendrecv> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::SendrecvReplace> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::Start> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::Startall> = false;
template <> inline constexpr bool kBeforeNeedsGuard<kinds::Init> = false;

// What a call's hooks keep between before() and after().
struct HookState {
  explicit HookState(CallState& state) : call(state) {}
  CallState& call;
  MPI_Status status{};                  // lent when the program passed MPI_STATUS_IGNORE
  CallBuffer<MPI_Status, 64> statuses;  // lent for MPI_STATUSES_IGNORE
  CallBuffer<uint64_t, 64> request_bits;  // the requests as they were before the call nulled them
};

// The world rank of `rank` in `comm` (its remote group for an
// intercommunicator); -1 for MPI_PROC_NULL, MPI_ANY_SOURCE and the like.
int32_t world_rank_of(MPI_Comm comm, int rank);
uint64_t type_bytes(MPI_Datatype type);

void count_send(HookState& s, const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
void count_receive(HookState& s, const MPI_Status* status, MPI_Datatype type, uint64_t element_bytes, MPI_Comm comm);
// A Wait/Test completed the request these bits named (status: its own).
void count_completion(HookState& s, uint64_t bits, const MPI_Status* status);
// A Waitall/Testall completed `count` requests, those s.request_bits names;
// status_of(i) is the status of the i-th.
template <typename StatusOf>
void count_completions(HookState& s, int count, StatusOf&& status_of);
void remember_requests(HookState& s, int count, const MPI_Request* requests);
MPI_Status* lend_statuses(HookState& s, int count, MPI_Status* statuses);
void process_started(int thread_level);
// Measures this process's clock against rank 0's (clock_alignment.cpp) and
// records it: collective over MPI_COMM_WORLD, at MPI_Init (kClockAtInit,
// once the process is known) and before MPI_Finalize (kClockAtFinalize).
void align_clock(uint16_t phase);
bool finalized();
void set_finalized();

inline bool succeeded(const HookState& s) { return s.call.call.result == MPI_SUCCESS; }

template <typename StatusOf>
void count_completions(HookState& s, int count, StatusOf&& status_of) {
  constexpr int kChunk = 64;  // completed under one lock of the request table
  std::optional<TrackedRequest> completed[kChunk];
  for (int first = 0; first < count; first += kChunk) {
    const int n = count - first < kChunk ? count - first : kChunk;
    complete_requests(&s.request_bits[static_cast<size_t>(first)], static_cast<size_t>(n), completed);
    for (int i = 0; i < n; ++i)
      if (completed[i] && completed[i]->receive)
        count_receive(s, status_of(first + i), handle_from_bits<MPI_Datatype>(completed[i]->datatype),
                      completed[i]->type_bytes, handle_from_bits<MPI_Comm>(completed[i]->communicator));
  }
}

// ---- Other: the time alone ----
template <typename... A> void before(kinds::Other, HookState&, A&...) {}
template <typename... A> void after(kinds::Other, HookState&, A&...) {}

// ---- Send, Bsend, Ssend, Rsend and their I- forms ----
template <typename... A> void before(kinds::Send, HookState&, A&...) {}
template <typename... Rest>
void after(kinds::Send, HookState& s, const void*& buf, int& count, MPI_Datatype& type, int& dest, int& tag,
           MPI_Comm& comm, Rest&...) {
  if (succeeded(s)) count_send(s, buf, count, type, dest, tag, comm);
}

// ---- Recv ----
inline void before(kinds::Recv, HookState& s, void*&, int&, MPI_Datatype&, int&, int&, MPI_Comm&, MPI_Status*& status) {
  if (status == MPI_STATUS_IGNORE) status = &s.status;
}
inline void after(kinds::Recv, HookState& s, void*&, int&, MPI_Datatype& type, int&, int&, MPI_Comm& comm,
                  MPI_Status*& status) {
  if (succeeded(s)) count_receive(s, status, type, type_bytes(type), comm);
}

// ---- Irecv, Recv_init: remembered until a Wait or Test completes them ----
void track_receive(MPI_Request request, MPI_Datatype type, int source, int tag, MPI_Comm comm, bool persistent);
template <typename... A> void before(kinds::Irecv, HookState&, A&...) {}
inline void after(kinds::Irecv, HookState& s, void*&, int&, MPI_Datatype& type, int& source, int& tag, MPI_Comm& comm,
                  MPI_Request*& request) {
  if (succeeded(s)) track_receive(*request, type, source, tag, comm, false);
}
template <typename... A> void before(kinds::RecvInit, HookState&, A&...) {}
inline void after(kinds::RecvInit, HookState& s, void*&, int&, MPI_Datatype& type, int& source, int& tag,
                  MPI_Comm& comm, MPI_Request*& request) {
  if (succeeded(s)) track_receive(*request, type, source, tag, comm, true);
}

// ---- Send_init and its B-, S-, R- forms: each MPI_Start sends ----
void track_persistent_send(MPI_Request request, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
template <typename... A> void before(kinds::SendInit, HookState&, A&...) {}
inline void after(kinds::SendInit, HookState& s, const void*&, int& count, MPI_Datatype& type, int& dest, int& tag,
                  MPI_Comm& comm, MPI_Request*& request) {
  if (succeeded(s)) track_persistent_send(*request, count, type, dest, tag, comm);
}

// ---- Sendrecv, Sendrecv_replace ----
inline void before(kinds::Sendrecv, HookState& s, const void*&, int&, MPI_Datatype&, int&, int&, void*&, int&,
                   MPI_Datatype&, int&, int&, MPI_Comm&, MPI_Status*& status) {
  if (status == MPI_STATUS_IGNORE) status = &s.status;
}
inline void after(kinds::Sendrecv, HookState& s, const void*& sendbuf, int& sendcount, MPI_Datatype& sendtype,
                  int& dest, int& sendtag, void*&, int&, MPI_Datatype& recvtype, int&, int&, MPI_Comm& comm,
                  MPI_Status*& status) {
  if (!succeeded(s)) return;
  count_send(s, sendbuf, sendcount, sendtype, dest, sendtag, comm);
  count_receive(s, status, recvtype, type_bytes(recvtype), comm);
}
inline void before(kinds::SendrecvReplace, HookState& s, void*&, int&, MPI_Datatype&, int&, int&, int&, int&,
                   MPI_Comm&, MPI_Status*& status) {
  if (status == MPI_STATUS_IGNORE) status = &s.status;
}
inline void after(kinds::SendrecvReplace, HookState& s, void*& buf, int& count, MPI_Datatype& type, int& dest,
                  int& sendtag, int&, int&, MPI_Comm& comm, MPI_Status*& status) {
  if (!succeeded(s)) return;
  count_send(s, buf, count, type, dest, sendtag, comm);
  count_receive(s, status, type, type_bytes(type), comm);
}

// ---- Start, Startall: persistent sends start here ----
void count_started(HookState& s, uint64_t bits);
template <typename... A> void before(kinds::Start, HookState&, A&...) {}
inline void after(kinds::Start, HookState& s, MPI_Request*& request) {
  if (succeeded(s)) count_started(s, handle_bits(*request));
}
template <typename... A> void before(kinds::Startall, HookState&, A&...) {}
inline void after(kinds::Startall, HookState& s, int& count, MPI_Request*& requests) {
  if (!succeeded(s)) return;
  for (int i = 0; i < count; ++i) count_started(s, handle_bits(requests[i]));
}

// ---- Wait, Test ----
inline void before(kinds::Wait, HookState& s, MPI_Request*& request, MPI_Status*& status) {
  remember_requests(s, 1, request);
  if (status == MPI_STATUS_IGNORE) status = &s.status;
}
inline void after(kinds::Wait, HookState& s, MPI_Request*&, MPI_Status*& status) {
  if (succeeded(s)) count_completion(s, s.request_bits[0], status);
}
inline void before(kinds::Test, HookState& s, MPI_Request*& request, int*&, MPI_Status*& status) {
  remember_requests(s, 1, request);
  if (status == MPI_STATUS_IGNORE) status = &s.status;
}
inline void after(kinds::Test, HookState& s, MPI_Request*&, int*& flag, MPI_Status*& status) {
  if (succeeded(s) && *flag) count_completion(s, s.request_bits[0], status);
}

// ---- Waitany, Testany ----
inline void before(kinds::Waitany, HookState& s, int& count, MPI_Request*& requests, int*&, MPI_Status*& status) {
  remember_requests(s, count, requests);
  if (status == MPI_STATUS_IGNORE) status = &s.status;
}
inline void after(kinds::Waitany, HookState& s, int&, MPI_Request*&, int*& index, MPI_Status*& status) {
  if (succeeded(s) && *index != MPI_UNDEFINED) count_completion(s, s.request_bits[*index], status);
}
inline void before(kinds::Testany, HookState& s, int& count, MPI_Request*& requests, int*&, int*&,
                   MPI_Status*& status) {
  remember_requests(s, count, requests);
  if (status == MPI_STATUS_IGNORE) status = &s.status;
}
inline void after(kinds::Testany, HookState& s, int&, MPI_Request*&, int*& index, int*& flag, MPI_Status*& status) {
  if (succeeded(s) && *flag && *index != MPI_UNDEFINED) count_completion(s, s.request_bits[*index], status);
}

// ---- Waitall, Testall ----
inline void before(kinds::Waitall, HookState& s, int& count, MPI_Request*& requests, MPI_Status*& statuses) {
  remember_requests(s, count, requests);
  statuses = lend_statuses(s, count, statuses);
}
inline void after(kinds::Waitall, HookState& s, int& count, MPI_Request*&, MPI_Status*& statuses) {
  if (succeeded(s)) count_completions(s, count, [&](int i) { return &statuses[i]; });
}
inline void before(kinds::Testall, HookState& s, int& count, MPI_Request*& requests, int*&, MPI_Status*& statuses) {
  remember_requests(s, count, requests);
  statuses = lend_statuses(s, count, statuses);
}
inline void after(kinds::Testall, HookState& s, int& count, MPI_Request*&, int*& flag, MPI_Status*& statuses) {
  if (succeeded(s) && *flag) count_completions(s, count, [&](int i) { return &statuses[i]; });
}

// ---- Waitsome, Testsome ----
template <typename Kind>
void before_some(HookState& s, int& incount, MPI_Request*& requests, MPI_Status*& statuses) {
  remember_requests(s, incount, requests);
  statuses = lend_statuses(s, incount, statuses);
}
inline void after_some(HookState& s, int*& outcount, int*& indices, MPI_Status*& statuses) {
  if (!succeeded(s) || *outcount == MPI_UNDEFINED) return;
  for (int i = 0; i < *outcount; ++i) count_completion(s, s.request_bits[indices[i]], &statuses[i]);
}
inline void before(kinds::Waitsome, HookState& s, int& incount, MPI_Request*& requests, int*&, int*&,
                   MPI_Status*& statuses) {
  before_some<kinds::Waitsome>(s, incount, requests, statuses);
}
inline void after(kinds::Waitsome, HookState& s, int&, MPI_Request*&, int*& outcount, int*& indices,
                  MPI_Status*& statuses) {
  after_some(s, outcount, indices, statuses);
}
inline void before(kinds::Testsome, HookState& s, int& incount, MPI_Request*& requests, int*&, int*&,
                   MPI_Status*& statuses) {
  before_some<kinds::Testsome>(s, incount, requests, statuses);
}
inline void after(kinds::Testsome, HookState& s, int&, MPI_Request*&, int*& outcount, int*& indices,
                  MPI_Status*& statuses) {
  after_some(s, outcount, indices, statuses);
}

// ---- Request_free ----
inline void before(kinds::RequestFree, HookState& s, MPI_Request*& request) { remember_requests(s, 1, request); }
inline void after(kinds::RequestFree, HookState& s, MPI_Request*&) {
  if (succeeded(s)) forget_request(s.request_bits[0]);
}

// ---- Init, Init_thread: the rank is known from here on ----
template <typename... A> void before(kinds::Init, HookState&, A&...) {}
inline void after(kinds::Init, HookState& s, int*&, char***&) {
  if (succeeded(s)) process_started(0);
}
inline void after(kinds::Init, HookState& s, int*&, char***&, int&, int*& provided) {
  if (succeeded(s)) process_started(*provided);
}

// ---- Finalize: the clock measured again; MPI may not be asked anything afterwards ----
template <typename... A> void before(kinds::Finalize, HookState&, A&...) { align_clock(kClockAtFinalize); }
template <typename... A> void after(kinds::Finalize, HookState&, A&...) { set_finalized(); }

// ---- Abort: does not return, so its record is written before ----
template <typename... A> void before(kinds::Abort, HookState& s, A&...) { write_call_now(s.call); }
template <typename... A> void after(kinds::Abort, HookState&, A&...) {}

}  // namespace lumen::mpi
