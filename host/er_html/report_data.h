// What the report shows, as one JSON document (written to data.js): the
// views er_print prints as JSON (header, overview, statistics, functions,
// callers-callees, thread list, annotated source of the hottest
// functions), and what only a picture needs: the unique stacks for flame
// graphs and the binned timeline (report_timeline.h), binned in the same
// pass over the events as the profile every table reads.
#pragma once

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "export_formats.h"
#include "session.h"

namespace lumen::er_html {

struct ReportOptions {
  std::vector<std::string> experiments;  // as given on the command line
  bool compare = false;                  // a differential flame graph of the first two
  size_t timeline_bins = 1000;
  size_t annotated_functions = 12;       // the hottest functions get annotated source
  // Source files are read from paths the experiment names and end up in a
  // report people pass around: embedded only when the user asks.
  bool sources = false;
};

// `buffer` is the stream the session prints to; each view is read from it.
nlohmann::json report_data(er_print::Session& session, std::ostringstream& buffer, const ReportOptions& options);

// The unique stacks of functions of a profile (root first, merged where
// different PCs fall in the same functions) with the values of `metrics`.
nlohmann::json stack_table(const analysis::StackProfile& profile, const analysis::ProgramStructure& structure,
                           const std::vector<size_t>& metrics, std::vector<analysis::FunctionId>& function_list);


}  // namespace lumen::er_html
