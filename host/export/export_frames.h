// What the exporters share: names and source positions of functions, the
// processes and threads events belong to, units, and JSON strings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cell_text.h"
#include "export_formats.h"
#include "object_symbols.h"

namespace lumen::exporting {

// The function's name as the views show it (-name applies).
const std::string& function_name(const ExportInput& input, analysis::FunctionId function);
// The source file and line of the function's entry, when DWARF has them.
std::optional<analysis::SourceLine> function_source(const ExportInput& input, analysis::FunctionId function);

// "nanoseconds", "count", "bytes".
const char* unit_word(lumen_metric_unit unit);

// The process an experiment recorded: its pid (the experiment's position
// when the header has none), its MPI rank if any, and a label for tracks:
// "rank 3: ./app" or "./app".
uint64_t process_id(const analysis::Experiment& experiment, size_t experiment_index);
std::optional<int64_t> mpi_rank(const analysis::Experiment& experiment);
std::string process_label(const analysis::Experiment& experiment);

// `text` as a JSON string, quotes included (the renderers' own).
using analysis::json_string;

}  // namespace lumen::exporting
