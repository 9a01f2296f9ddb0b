// What an experiment lacks or cannot be trusted for, said on every view as
// the data limit (-L) is: a table file that is gone, records the collector
// dropped, header values no machine could have. Each is a sentence for
// Experiment::warnings().
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lumen::analysis {

// "stacks missing: every event's stack is unknown" for each table file
// (stacks, loadobjects) that is not in the experiment directory.
std::vector<std::string> missing_table_notices(const std::filesystem::path& experiment);

// "heaptrace missing: no heap data" for a plugin data file the header
// plans and the collector created at start, gone since.
std::string missing_data_file_notice(const std::string& data_file, const std::string& plugin);

// Whether the runtime logged that a plugin created `data_file` (a plugin
// may open its file late, or never: MPI's at MPI_Init).
bool data_file_created(const std::vector<YAML::Node>& log, const std::string& data_file);

// How many records the collector's log says were dropped, and why when it
// logged why; nullopt when none were.
std::optional<std::string> dropped_records_notice(const YAML::Node& header, const std::vector<YAML::Node>& log);

// One notice per header value no recording could have (CPUs <= 0, a clock
// rate that is not a positive number, an end before the start, a start
// before 1990 or in the future); each such key is taken out of `header`, so
// every view treats the value as unknown.
std::vector<std::string> drop_implausible_header_values(YAML::Node& header);

}  // namespace lumen::analysis
