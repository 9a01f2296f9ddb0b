// Running a view that a plugin adds to er_print (lumen_view_def), and
// rendering what it produced — summary lines and tables whose rows may carry
// a call stack — as text, CSV or JSON.
#pragma once

#include <lumen/analysis_plugin.h>

#include <memory>
#include <string>
#include <vector>

#include "experiment.h"
#include "profile.h"
#include "program_structure.h"
#include "view_table.h"

namespace lumen::analysis {

// `selection` answers the view's lumen_view_host.selected (empty: all is
// selected). Throws std::runtime_error with the plugin's message when the
// view fails.
std::string run_plugin_view(const lumen_view_def& view, const std::string& plugin,
                            const std::vector<std::unique_ptr<Experiment>>& experiments, ProgramStructure& structure,
                            size_t row_limit, OutputFormat format, const EventFilter& selection = {});

}  // namespace lumen::analysis
