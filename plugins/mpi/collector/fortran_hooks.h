// What a Fortran wrapper learns from a call besides its time, by the
// call's KIND in mpi_functions.def: the C hooks' counting rules
// (mpi_call_hooks.h) applied to the Fortran arguments. Slots are numbered
// as the C parameters (the Fortran bindings take them in the same order,
// then ierror).
#pragma once

#include "fortran_arguments.h"

namespace lumen::mpi::fortran {

inline bool succeeded(const FortranCall& c) { return c.hooks.call.call.result == MPI_SUCCESS; }

// ---- Other: the time alone ----
template <typename Kind> void before(Kind, FortranCall&) {}
template <typename Kind> void after(Kind, FortranCall&) {}

// ---- Send, Bsend, Ssend, Rsend and their I- forms: (buf, count, type, dest, tag, comm[, request]) ----
inline void after(kinds::Send, FortranCall& c) {
  if (succeeded(c)) count_send(c.hooks, nullptr, c.integer(1), c.type(2), c.integer(3), c.integer(4), c.comm(5));
}

// ---- Recv: (buf, count, type, source, tag, comm, status) ----
inline void before(kinds::Recv, FortranCall& c) { c.lend_status(6); }
inline void after(kinds::Recv, FortranCall& c) {
  if (succeeded(c)) count_receive(c.hooks, c.status(6), c.type(2), type_bytes(c.type(2)), c.comm(5));
}

// ---- Irecv, Recv_init: (buf, count, type, source, tag, comm, request) ----
inline void after(kinds::Irecv, FortranCall& c) {
  if (succeeded(c))
    track_receive(handle_from_bits<MPI_Request>(c.request_bits(6)), c.type(2), c.integer(3), c.integer(4), c.comm(5),
                  false);
}
inline void after(kinds::RecvInit, FortranCall& c) {
  if (succeeded(c))
    track_receive(handle_from_bits<MPI_Request>(c.request_bits(6)), c.type(2), c.integer(3), c.integer(4), c.comm(5),
                  true);
}

// ---- Send_init and its B-, S-, R- forms: (buf, count, type, dest, tag, comm, request) ----
inline void after(kinds::SendInit, FortranCall& c) {
  if (succeeded(c))
    track_persistent_send(handle_from_bits<MPI_Request>(c.request_bits(6)), c.integer(1), c.type(2), c.integer(3),
                          c.integer(4), c.comm(5));
}

// ---- Sendrecv: (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
// recvtag, comm, status) ----
inline void before(kinds::Sendrecv, FortranCall& c) { c.lend_status(11); }
inline void after(kinds::Sendrecv, FortranCall& c) {
  if (!succeeded(c)) return;
  count_send(c.hooks, nullptr, c.integer(1), c.type(2), c.integer(3), c.integer(4), c.comm(10));
  count_receive(c.hooks, c.status(11), c.type(7), type_bytes(c.type(7)), c.comm(10));
}

// ---- Sendrecv_replace: (buf, count, type, dest, sendtag, source, recvtag, comm, status) ----
inline void before(kinds::SendrecvReplace, FortranCall& c) { c.lend_status(8); }
inline void after(kinds::SendrecvReplace, FortranCall& c) {
  if (!succeeded(c)) return;
  count_send(c.hooks, nullptr, c.integer(1), c.type(2), c.integer(3), c.integer(4), c.comm(7));
  count_receive(c.hooks, c.status(8), c.type(2), type_bytes(c.type(2)), c.comm(7));
}

// ---- Start: (request); Startall: (count, requests) ----
inline void after(kinds::Start, FortranCall& c) {
  if (succeeded(c)) count_started(c.hooks, c.request_bits(0));
}
inline void after(kinds::Startall, FortranCall& c) {
  if (!succeeded(c)) return;
  for (int i = 0; i < c.integer(0); ++i) count_started(c.hooks, FortranCall::request_bits_of(c.integers(1)[i]));
}

// ---- Wait: (request, status); Test: (request, flag, status) ----
inline void before(kinds::Wait, FortranCall& c) {
  c.remember_requests(0, 1);
  c.lend_status(1);
}
inline void after(kinds::Wait, FortranCall& c) {
  if (succeeded(c)) count_completion(c.hooks, c.hooks.request_bits[0], c.status(1));
}
inline void before(kinds::Test, FortranCall& c) {
  c.remember_requests(0, 1);
  c.lend_status(2);
}
inline void after(kinds::Test, FortranCall& c) {
  if (succeeded(c) && c.integer(1)) count_completion(c.hooks, c.hooks.request_bits[0], c.status(2));
}

// Whether the call set request i of the array at slot 1 to MPI_REQUEST_NULL
// (it completed, and was not persistent).
inline bool nulled(const FortranCall& c, int i) {
  const uint64_t null = FortranCall::null_request_bits();
  return c.hooks.request_bits[i] != null && FortranCall::request_bits_of(c.integers(1)[i]) == null;
}

// What the first index that Waitany, Testany, Waitsome and Testsome return
// stands for: 1, as MPI specifies for Fortran, or 0: MPICH 4.0's mpi_f08
// passes C's indices through. Told apart by the requests the call nulled;
// 1 where they do not tell (persistent requests).
inline int index_base(const FortranCall& c, const MPI_Fint* indices, int n) {
  const int count = c.integer(0);
  bool from_one = n > 0, from_zero = n > 0;
  for (int k = 0; k < n; ++k) {
    const MPI_Fint index = indices[k];
    from_one = from_one && index >= 1 && index <= count && nulled(c, index - 1);
    from_zero = from_zero && index >= 0 && index < count && nulled(c, index);
  }
  return from_zero && !from_one ? 0 : 1;
}

// ---- Waitany: (count, requests, index, status); Testany: (count, requests, index, flag, status) ----
inline void completed_any(FortranCall& c, size_t status_slot) {
  const MPI_Fint* index = c.integers(2);
  if (*index == MPI_UNDEFINED) return;
  const int slot = *index - index_base(c, index, 1);
  if (slot >= 0 && slot < c.integer(0)) count_completion(c.hooks, c.hooks.request_bits[slot], c.status(status_slot));
}
inline void before(kinds::Waitany, FortranCall& c) {
  c.remember_requests(1, c.integer(0));
  c.lend_status(3);
}
inline void after(kinds::Waitany, FortranCall& c) {
  if (succeeded(c)) completed_any(c, 3);
}
inline void before(kinds::Testany, FortranCall& c) {
  c.remember_requests(1, c.integer(0));
  c.lend_status(4);
}
inline void after(kinds::Testany, FortranCall& c) {
  if (succeeded(c) && c.integer(3)) completed_any(c, 4);
}

// ---- Waitall: (count, requests, statuses); Testall: (count, requests, flag, statuses) ----
inline void completed_all(FortranCall& c, size_t statuses_slot) {
  count_completions(c.hooks, c.integer(0), [&](int i) { return c.status(statuses_slot, i); });
}
inline void before(kinds::Waitall, FortranCall& c) {
  c.remember_requests(1, c.integer(0));
  c.lend_statuses(2, c.integer(0));
}
inline void after(kinds::Waitall, FortranCall& c) {
  if (succeeded(c)) completed_all(c, 2);
}
inline void before(kinds::Testall, FortranCall& c) {
  c.remember_requests(1, c.integer(0));
  c.lend_statuses(3, c.integer(0));
}
inline void after(kinds::Testall, FortranCall& c) {
  if (succeeded(c) && c.integer(2)) completed_all(c, 3);
}

// ---- Waitsome, Testsome: (incount, requests, outcount, indices, statuses) ----
inline void before_some(FortranCall& c) {
  c.remember_requests(1, c.integer(0));
  c.lend_statuses(4, c.integer(0));
}
inline void after_some(FortranCall& c) {
  if (!succeeded(c) || c.integer(2) == MPI_UNDEFINED) return;
  const int base = index_base(c, c.integers(3), c.integer(2));
  for (int i = 0; i < c.integer(2); ++i) {
    const int slot = c.integers(3)[i] - base;
    if (slot >= 0 && slot < c.integer(0)) count_completion(c.hooks, c.hooks.request_bits[slot], c.status(4, i));
  }
}
inline void before(kinds::Waitsome, FortranCall& c) { before_some(c); }
inline void after(kinds::Waitsome, FortranCall& c) { after_some(c); }
inline void before(kinds::Testsome, FortranCall& c) { before_some(c); }
inline void after(kinds::Testsome, FortranCall& c) { after_some(c); }

// ---- Request_free: (request) ----
inline void before(kinds::RequestFree, FortranCall& c) { c.remember_requests(0, 1); }
inline void after(kinds::RequestFree, FortranCall& c) {
  if (succeeded(c)) forget_request(c.hooks.request_bits[0]);
}

// ---- Init: (); Init_thread: (required, provided): Fortran has no argc, argv ----
inline void after(kinds::Init, FortranCall& c) {
  if (succeeded(c)) process_started(c.function == Function::kInit_thread ? c.integer(1) : 0);
}

// ---- Finalize: the clock measured again; MPI may not be asked anything afterwards ----
inline void before(kinds::Finalize, FortranCall&) { align_clock(kClockAtFinalize); }
inline void after(kinds::Finalize, FortranCall&) { set_finalized(); }

// ---- Abort: does not return, so its record is written before ----
inline void before(kinds::Abort, FortranCall& c) { write_call_now(c.hooks.call); }

}  // namespace lumen::mpi::fortran
