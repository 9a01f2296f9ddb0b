// A plugin may ship several builds of its collector half for libraries
// whose ABIs differ (MPI: Open MPI and MPICH). Its directory then holds a
// file "collector-variants", lines "SONAME FILE": preload FILE when the
// program needs SONAME. collect looks at the libraries the target needs
// (DT_NEEDED) and at those of programs named on its command line (a
// launcher's target: `mpirun -np 4 ./app`), in that order; the first
// variant matched wins, else the plugin's collector.so stays.
#pragma once

#include <string>
#include <vector>

#include "collection_plan.h"

namespace lumen::collect {

// The sonames an ELF file names in DT_NEEDED; empty for anything else.
std::vector<std::string> needed_libraries(const std::string& path);

// Replaces each planned plugin's collector path by the variant the target
// (program, with the command line `command`) needs.
void choose_collector_variants(CollectionPlan& plan, const std::string& program,
                               const std::vector<std::string>& command);

}  // namespace lumen::collect
