// Running a view that a plugin adds to er_print (lumen_view_def): what it
// produced, summary figures and tables whose rows may carry a call stack,
// as a document for the renderer.
#pragma once

#include <lumen/analysis_plugin.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "experiment.h"
#include "metric_registry.h"
#include "stack_profile.h"
#include "program_structure.h"
#include "document.h"
#include "plugin_readings.h"

namespace lumen::analysis {

// What the session decoded already of the experiments: a profile under the
// view's selection, with no stack filter (lumen_view_host.stack_sums sums
// its stacks), and what plugins read under it (lumen_view_host.kept). Null:
// none, the view reads its records (and what it reads is freed after it).
struct DecodedEvents {
  const StackProfile* profile = nullptr;
  const MetricRegistry* registry = nullptr;
  PluginReadings* readings = nullptr;
};

// Rows handed on as the view gives them (a listing of every call of a long
// trace, written as it comes): each row of every table goes to `pass`, with
// the table's number and columns; a table holds its first `hold` rows, and
// none once it has more (ViewTable::rows_passed). With hold 0, none.
struct RowPassing {
  size_t hold = 0;
  std::function<void(size_t table, const ViewTable& columns, const ViewRow& row)> pass;
};

// `selection` answers the view's lumen_view_host.selected (empty: all is
// selected). Throws std::runtime_error with the plugin's message when the
// view fails.
Document run_plugin_view(const lumen_view_def& view, const std::string& plugin,
                         const std::vector<std::unique_ptr<Experiment>>& experiments, ProgramStructure& structure,
                         size_t row_limit, const EventFilter& selection = {}, const DecodedEvents& decoded = {},
                         const RowPassing* passing = nullptr);

}  // namespace lumen::analysis
