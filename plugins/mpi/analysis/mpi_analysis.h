// The MPI plugin's analysis half: what its files share.
#pragma once

#include <lumen/analysis_plugin.h>

namespace lumen::mpi {

// er_print -mpi_stats, -mpi_messages.
extern const lumen_view_def kMpiViews[];
extern const size_t kMpiViewCount;

}  // namespace lumen::mpi
