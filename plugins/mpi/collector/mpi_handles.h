// MPI as the wrappers see it: mpi.h of the implementation this collector
// variant is built for, with the removed MPI-1 prototypes declared (the list
// of traced functions has some), plus what the hooks need of it. Included
// only by code compiled once per implementation.
#pragma once

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
// Open MPI declares the removed MPI-1 functions (which it still exports)
// only when asked; they are traced like the rest.
#define OMPI_OMIT_MPI1_COMPAT_DECLS 0
#include <mpi.h>

#include <cstdint>
#include <cstring>

// The one parameter type the two implementations spell differently.
#ifdef OPEN_MPI
#define LUMEN_MPI_HANDLER_FUNCTION MPI_Handler_function
#else
#define LUMEN_MPI_HANDLER_FUNCTION MPI_Comm_errhandler_function
#endif

namespace lumen::mpi {

// A handle's bits (a pointer in Open MPI, an int in MPICH), to store and compare.
template <typename Handle>
uint64_t handle_bits(Handle handle) {
  static_assert(sizeof(Handle) <= sizeof(uint64_t), "handles fit in 64 bits");
  uint64_t bits = 0;
  std::memcpy(&bits, &handle, sizeof handle);
  return bits;
}

template <typename Handle>
Handle handle_from_bits(uint64_t bits) {
  Handle handle;
  std::memcpy(&handle, &bits, sizeof handle);
  return handle;
}

}  // namespace lumen::mpi
