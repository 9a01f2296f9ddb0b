// A plugin may ship several builds of its collector half for libraries
// whose ABIs differ (MPI: Open MPI and MPICH). Its directory then holds a
// file "collector-variants", lines "SONAME FILE": preload FILE when the
// program needs SONAME. collect looks at the libraries the target needs
// (DT_NEEDED) and at those of programs named on its command line (a
// launcher's target: `mpirun -np 4 ./app`), in that order; the first
// variant matched wins, else the plugin's collector.so stays.
//
// Names after FILE ("SONAME FILE NAME...") are those a user may force the
// variant by, and a line "flag LETTER HELP" gives the plugin a second
// collect flag for it (Oracle's -M): "-LETTER NAME" turns the plugin on with
// that variant whatever the target needs, "-LETTER off" turns it off. Names
// compare without regard to case.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "plan_resolution.h"

namespace lumen::collect {

// The sonames an ELF file names in DT_NEEDED; empty for anything else.
std::vector<std::string> needed_libraries(const std::string& path);

// The libraries the target needs: the program's, then those of programs
// named on its command line `command` (a launcher's target).
std::vector<std::string> target_needed_libraries(const std::string& program, const std::vector<std::string>& command);

// The variant flags the installed plugins declare, and each one's help line.
std::map<std::string, std::string> variant_flags(const std::map<std::string, InstalledPlugin>& installed);

// Turns the variant flags of `request` into the plugins' own flags ("-M off"
// into "-m off", "-M NAME" into the plugin's flag with no value: on, its
// options untouched) and returns the variant forced for each plugin, by
// plugin name. Throws UsageError naming the accepted values when NAME is no
// variant's, before anything runs.
std::map<std::string, std::filesystem::path> take_variant_flags(
    CollectRequest& request, const std::map<std::string, InstalledPlugin>& installed);

// Replaces each planned plugin's collector path by the variant forced for it
// or else by the one the target (program, with the command line `command`)
// needs.
void choose_collector_variants(CollectionPlan& plan, const std::string& program,
                               const std::vector<std::string>& command,
                               const std::map<std::string, std::filesystem::path>& forced = {});

}  // namespace lumen::collect
