// An er_print session: the experiments, the settings that commands change
// (metrics, sort, limit, output format), and the profile built from them,
// rebuilt only when something it depends on changes.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "experiment.h"
#include "metric_registry.h"
#include "profile.h"
#include "program_structure.h"
#include "structure_views.h"
#include "view_table.h"

namespace lumen::er_print {

struct CommandError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Session {
 public:
  Session(analysis::AnalysisPlugins plugins, std::ostream& out);

  void open_experiment(const std::string& path);  // throws FormatError
  const std::vector<std::unique_ptr<analysis::Experiment>>& experiments() const { return experiments_; }

  void set_metrics(const std::string& spec);
  void set_sort(const std::string& spec);
  void set_limit(const std::string& count);
  void set_format(const std::string& format);
  analysis::OutputFormat format() const { return format_; }

  const analysis::Profile& profile();
  analysis::ViewRequest view_request() const;
  const analysis::ProgramStructure& structure() const { return structure_; }
  analysis::ProgramStructure& structure() { return structure_; }
  const analysis::AnalysisPlugins& plugins() const { return plugins_; }
  std::optional<size_t> limit() const { return limit_; }
  const analysis::MetricRegistry& registry() const { return registry_; }
  std::ostream& out() { return out_; }

 private:
  analysis::AnalysisPlugins plugins_;
  std::ostream& out_;
  analysis::MetricRegistry registry_;
  analysis::ProgramStructure structure_;
  std::vector<std::unique_ptr<analysis::Experiment>> experiments_;
  std::optional<std::string> metric_spec_;
  std::optional<std::string> sort_spec_;
  std::optional<size_t> limit_;
  analysis::OutputFormat format_ = analysis::OutputFormat::Text;
  std::unique_ptr<analysis::Profile> profile_;
};

}  // namespace lumen::er_print
