// The MPI plugin's analysis half: what its files share.
#pragma once

#include <lumen/analysis_plugin.h>

namespace lumen::mpi {

// er_print -mpi_stats, -mpi_messages, -mpi_ranks, -mpi_timeline.
extern const lumen_view_def kMpiViews[];
extern const size_t kMpiViewCount;

// -mpi_timeline (mpi_timeline.cpp).
int run_timeline(const lumen_view_host* host, char* error, size_t error_size);

}  // namespace lumen::mpi
