#include "export_formats.h"

#include <algorithm>
#include <fstream>

namespace lumen::exporting {

ExportFormat parse_export_format(const std::string& name) {
  if (name == "folded") return ExportFormat::Folded;
  if (name == "pprof") return ExportFormat::Pprof;
  if (name == "chrome") return ExportFormat::Chrome;
  if (name == "speedscope") return ExportFormat::Speedscope;
  throw ExportError("unknown export format '" + name + "'; allowed: folded, pprof, chrome, speedscope");
}

std::vector<size_t> exported_metrics(const analysis::MetricSelection& selection,
                                     const analysis::MetricRegistry& registry) {
  std::vector<size_t> metrics;
  for (const analysis::MetricColumn& column : selection.columns) {
    if (registry.metrics().at(column.metric).ratio_of) continue;
    if (std::find(metrics.begin(), metrics.end(), column.metric) == metrics.end()) metrics.push_back(column.metric);
  }
  return metrics;
}

void write_export(ExportFormat format, const ExportInput& input, const std::filesystem::path& file) {
  if (input.metrics.empty())
    throw ExportError("no metric to export: -metrics names only ratios or nothing this experiment has");
  if (format == ExportFormat::Pprof) {
    write_pprof(input, file);
    return;
  }
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw ExportError("cannot write " + file.string());
  switch (format) {
    case ExportFormat::Folded: write_folded(input, out); break;
    case ExportFormat::Chrome: write_chrome_trace(input, out); break;
    case ExportFormat::Speedscope: write_speedscope(input, out); break;
    case ExportFormat::Pprof: break;
  }
  out.flush();
  if (!out) throw ExportError("writing " + file.string() + " failed");
}

}  // namespace lumen::exporting
