// Descendant processes: each one the founder creates (fork, vfork, exec,
// posix_spawn, system, popen), and theirs, is collected into a
// sub-experiment of the founder named by its lineage: _f1.er for the first
// fork, _x1.er for an exec, _f3_x1.er for an exec in the third fork's child.
// A rank of a parallel job (an image whose environment gains the launcher's
// OMPI_COMM_WORLD_RANK, PMI_RANK or PMIX_RANK) is named by its rank instead:
// _rank3.er, or _f2_x1_rank3.er when the founder has a _rank3.er already.
//
// The environment of a new image carries the state across exec: the
// collector's variables (collector_variables.h), which the program's own
// environment does not show.
#pragma once

#include <string>

namespace lumen::collector {

// Not signal-safe. Called once collection has started in this process.
void descendants_start(const std::string& lineage, const std::string& follow);

// How many processes this image forked or spawned so far.
int children_started();

// Whether a process with this command line is followed under `follow`
// ("on", "all", "off", or "=REGEX").
bool follows(const std::string& follow, const std::string& command_line);

}  // namespace lumen::collector
