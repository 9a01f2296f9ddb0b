#include "fortran_arguments.h"

// Weak references, as the C wrappers' PMPI_ functions: bound to the MPI
// library the program links, absent in a process without one (where no
// call is traced). MPICH's handle conversions are macros.
#pragma weak PMPI_Status_f2c
#pragma weak MPI_F_STATUS_IGNORE
#pragma weak MPI_F_STATUSES_IGNORE
#ifdef OPEN_MPI
#pragma weak PMPI_Comm_f2c
#pragma weak PMPI_Type_f2c
#pragma weak PMPI_Request_f2c
#pragma weak ompi_request_null
#else
#pragma weak MPI_F08_STATUS_IGNORE
#pragma weak MPI_F08_STATUSES_IGNORE
#endif

namespace lumen::mpi::fortran {

namespace {

// The address a program passes for MPI_STATUS_IGNORE (MPI_STATUSES_IGNORE):
// the library's, read at each call (MPICH sets it when its Fortran
// bindings are first called). Open MPI's mpi_f08 passes mpif.h's.
const void* status_ignore(Binding binding, bool array) {
#ifndef OPEN_MPI
  if (binding == Binding::kF08) {
    MPI_F08_status* const* sentinel = array ? &MPI_F08_STATUSES_IGNORE : &MPI_F08_STATUS_IGNORE;
    return sentinel != nullptr ? *sentinel : nullptr;
  }
#else
  (void)binding;
#endif
  MPI_Fint* const* sentinel = array ? &MPI_F_STATUSES_IGNORE : &MPI_F_STATUS_IGNORE;
  return sentinel != nullptr ? *sentinel : nullptr;
}

bool ignored(const void* status, Binding binding, bool array) {
  const void* sentinel = status_ignore(binding, array);
  return sentinel != nullptr && status == sentinel;
}

}  // namespace

MPI_Comm FortranCall::comm(size_t i) const { return PMPI_Comm_f2c(integer(i)); }

MPI_Datatype FortranCall::type(size_t i) const { return PMPI_Type_f2c(integer(i)); }

uint64_t FortranCall::request_bits_of(MPI_Fint request) { return handle_bits(PMPI_Request_f2c(request)); }

uint64_t FortranCall::null_request_bits() { return handle_bits(MPI_REQUEST_NULL); }

void FortranCall::lend_error() {
  if (slots[error_slot] == nullptr) slots[error_slot] = &hooks.lent_error;
}

void FortranCall::lend_status(size_t i) {
  if (ignored(slots[i], binding, false)) slots[i] = hooks.lent_status;
}

void FortranCall::lend_statuses(size_t i, int count) {
  if (!ignored(slots[i], binding, true)) return;
  slots[i] = hooks.lent_statuses.resize(kStatusWords * static_cast<size_t>(count > 0 ? count : 1));
}

const MPI_Status* FortranCall::status(size_t i, int n) {
  const MPI_Fint* words = integers(i) + kStatusWords * static_cast<size_t>(n);
  if (PMPI_Status_f2c(words, &hooks.status) != MPI_SUCCESS) {
    hooks.status = MPI_Status{};
    hooks.status.MPI_SOURCE = MPI_PROC_NULL;  // unreadable: counted as no message
  }
  return &hooks.status;
}

void FortranCall::remember_requests(size_t i, int count) {
  uint64_t* bits = hooks.request_bits.resize(count > 0 ? static_cast<size_t>(count) : 0);
  for (int n = 0; n < count; ++n) bits[n] = request_bits_of(integers(i)[n]);
}

}  // namespace lumen::mpi::fortran
