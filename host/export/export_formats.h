// er_print -export FORMAT FILE: the selected events of a session, as the
// stack profile aggregates them, written in a format another tool reads.
//   folded      root;...;leaf VALUE, one line per unique stack (FlameGraph)
//   pprof       gzipped profile.proto (go tool pprof)
//   chrome      trace-event JSON, a track per thread (Perfetto, chrome://tracing)
//   speedscope  speedscope's file format, a profile per thread
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "event_selection.h"
#include "experiment.h"
#include "metric_registry.h"
#include "metric_spec.h"
#include "program_structure.h"
#include "stack_profile.h"

namespace lumen::exporting {

struct ExportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class ExportFormat { Folded, Pprof, Chrome, Speedscope };

// Throws ExportError naming the formats there are.
ExportFormat parse_export_format(const std::string& name);

// What every exporter reads: the profile er_print's views count (its
// filters and view mode applied), and the selection that made it, so that
// exporters walking single events (chrome, speedscope) keep the same ones.
struct ExportInput {
  const std::vector<std::unique_ptr<analysis::Experiment>>& experiments;
  const analysis::StackProfile& profile;
  const analysis::ProgramStructure& structure;
  const analysis::MetricRegistry& registry;
  // Registry indices of the metrics to export, in -metrics order; derived
  // ratios are left out (they do not add up along a stack).
  std::vector<size_t> metrics;
  analysis::EventFilter event_filter;
  // The time event_filter keeps at most: only the blocks of the data files
  // that hold events in it are decoded.
  analysis::TimeWindow window;
};

// The metrics a -metrics selection names, each once, ratios left out.
std::vector<size_t> exported_metrics(const analysis::MetricSelection& selection,
                                     const analysis::MetricRegistry& registry);

// Writes `file`; throws ExportError when it cannot be written or there is
// nothing to export.
void write_export(ExportFormat format, const ExportInput& input, const std::filesystem::path& file);

// One writer per format (each in its own file).
void write_folded(const ExportInput& input, std::ostream& out);
void write_pprof(const ExportInput& input, const std::filesystem::path& file);
void write_chrome_trace(const ExportInput& input, std::ostream& out);
void write_speedscope(const ExportInput& input, std::ostream& out);

}  // namespace lumen::exporting
