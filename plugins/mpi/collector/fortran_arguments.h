// A call of the Fortran bindings as the hooks see it: its arguments are
// the addresses the program passed (every Fortran argument is passed by
// reference), read as C values through MPI's handle conversions
// (MPI_Comm_f2c, MPI_Type_f2c, MPI_Request_f2c, MPI_Status_f2c). The
// arguments are forwarded to the real Fortran entry point unchanged, except
// that a status or error code the program left out (MPI_STATUS_IGNORE, an
// absent ierror of mpi_f08) is lent, so that the hooks can read it.
#pragma once

#include <cstddef>

#include "mpi_call_hooks.h"

namespace lumen::mpi::fortran {

// mpif.h and `use mpi` (INTEGER handles, INTEGER status arrays), or
// `use mpi_f08` (derived types, each holding the same INTEGER; optional
// ierror). Only the sentinels for an ignored status differ (in MPICH).
enum class Binding { kMpifh, kF08 };

// Both implementations' Fortran status, an INTEGER array of
// MPI_STATUS_SIZE or mpi_f08's TYPE(MPI_Status), holds the words of the C
// MPI_Status in their order (MPI_Status_f2c copies them): Open MPI 6, MPICH 5.
inline constexpr size_t kStatusWords = sizeof(MPI_Status) / sizeof(MPI_Fint);
static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a Fortran status is whole INTEGERs");

// What a Fortran call's hooks keep besides the C hooks' state: the status
// and error code lent to MPI.
struct FortranHookState : HookState {
  using HookState::HookState;
  MPI_Fint lent_status[kStatusWords];
  CallBuffer<MPI_Fint, 64 * kStatusWords> lent_statuses;
  MPI_Fint lent_error = 0;
};

struct FortranCall {
  void** slots;  // the arguments as passed, then the hidden lengths of CHARACTER arguments
  size_t error_slot;  // where ierror is
  Binding binding;
  Function function;
  FortranHookState& hooks;
  bool hooked = true;  // before() ran (it needs the runtime's re-entry guard for some kinds)

  MPI_Fint integer(size_t i) const { return *static_cast<const MPI_Fint*>(slots[i]); }
  const MPI_Fint* integers(size_t i) const { return static_cast<const MPI_Fint*>(slots[i]); }
  MPI_Comm comm(size_t i) const;
  MPI_Datatype type(size_t i) const;
  uint64_t request_bits(size_t i) const { return request_bits_of(integer(i)); }
  static uint64_t request_bits_of(MPI_Fint request);
  static uint64_t null_request_bits();

  // Lends ierror when mpi_f08's optional argument is absent.
  void lend_error();
  MPI_Fint error() const { return integer(error_slot); }
  // Lends a status (an array of `count`) where the program passed
  // MPI_STATUS_IGNORE (MPI_STATUSES_IGNORE).
  void lend_status(size_t i);
  void lend_statuses(size_t i, int count);
  // The status at slot i (element n of an array there) in C, valid until
  // the next call of either.
  const MPI_Status* status(size_t i, int n = 0);
  // The requests of the array at slot i, before the call frees them.
  void remember_requests(size_t i, int count);
};

}  // namespace lumen::mpi::fortran
