#include "session.h"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "metric_spec.h"

namespace lumen::er_print {

using namespace analysis;

Session::Session(AnalysisPlugins plugins, std::ostream& out) : plugins_(std::move(plugins)), out_(out) {}

void Session::open_experiment(const std::string& path) {
  plugins_.add_recorded(path);
  experiments_.push_back(std::make_unique<Experiment>(path, plugins_, registry_));
  // A founder's descendants (sub-experiments named by lineage) come with it.
  std::vector<std::filesystem::path> descendants;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec))
    if (entry.is_directory() && entry.path().extension() == ".er" && entry.path().filename().string()[0] == '_')
      descendants.push_back(entry.path());
  std::sort(descendants.begin(), descendants.end());
  for (const auto& descendant : descendants)
    experiments_.push_back(std::make_unique<Experiment>(descendant, plugins_, registry_));
  profile_.reset();
}

void Session::set_metrics(const std::string& spec) {
  try {
    parse_metric_spec(spec, registry_);  // checked now, so the error names this command
  } catch (const SpecError& e) {
    throw CommandError(e.what());
  }
  metric_spec_ = spec;
}

void Session::set_sort(const std::string& spec) {
  try {
    parse_sort_spec(spec, registry_);
  } catch (const SpecError& e) {
    throw CommandError(e.what());
  }
  sort_spec_ = spec;
}

void Session::set_limit(const std::string& count) {
  char* end = nullptr;
  const long long n = std::strtoll(count.c_str(), &end, 10);
  if (count.empty() || *end != '\0' || n < 0) throw CommandError("limit takes a count of rows (0: no limit), not '" + count + "'");
  limit_ = n == 0 ? std::nullopt : std::optional<size_t>(static_cast<size_t>(n));
}

void Session::set_format(const std::string& format) {
  if (format == "text") format_ = OutputFormat::Text;
  else if (format == "csv") format_ = OutputFormat::Csv;
  else if (format == "json") format_ = OutputFormat::Json;
  else throw CommandError("unknown format '" + format + "'; allowed: text, csv, json");
}

const Profile& Session::profile() {
  if (!profile_) profile_ = std::make_unique<Profile>(experiments_, registry_, structure_, EventFilter{});
  return *profile_;
}

ViewRequest Session::view_request() const {
  ViewRequest request;
  request.metrics = parse_metric_spec(metric_spec_.value_or(default_metric_spec(registry_)), registry_);
  if (sort_spec_) {
    request.sort = parse_sort_spec(*sort_spec_, registry_);
  } else if (!request.metrics.columns.empty()) {
    request.sort.flavor = request.metrics.columns.front().flavor;
    request.sort.metric = request.metrics.columns.front().metric;
  } else {
    request.sort.by_name = true;
  }
  request.limit = limit_;
  return request;
}

}  // namespace lumen::er_print
