#include "page_settings.h"

#include <algorithm>
#include <charconv>

#include "event_selection.h"
#include "metric_spec.h"

namespace lumen::analyzer {

namespace {

template <typename Apply>
void apply_setting(const char* name, Apply apply) {
  try {
    apply();
  } catch (const er_print::CommandError& e) {
    throw SettingError(name, e.what());
  }
}

const char* compare_word(analysis::CompareMode mode) {
  switch (mode) {
    case analysis::CompareMode::Values: return "on";
    case analysis::CompareMode::Delta: return "delta";
    case analysis::CompareMode::Ratio: return "ratio";
    case analysis::CompareMode::Off: break;
  }
  return "off";
}

const std::string& or_default(const std::string& setting, const std::string& fallback) {
  return setting.empty() ? fallback : setting;
}

}  // namespace

// The page's filter and its experiments as one expression; throws
// SettingError for a list that is not experiment ids.
std::string SettingsInForce::filter_expression(const PageSettings& settings) const {
  if (settings.experiments.empty()) return settings.filters;
  const size_t count = session_.experiments().size();
  std::string ids;
  size_t at = 0;
  while (at <= settings.experiments.size()) {
    const size_t comma = std::min(settings.experiments.find(',', at), settings.experiments.size());
    const std::string id = settings.experiments.substr(at, comma - at);
    size_t value = 0;
    const auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), value);
    if (id.empty() || error != std::errc{} || end != id.data() + id.size() || value < 1 || value > count)
      throw SettingError("experiments", "'" + id + "' is not an experiment id (1 to " + std::to_string(count) +
                                            ", as the Experiments tab numbers them)");
    ids += (ids.empty() ? "" : ",") + id;
    at = comma + 1;
  }
  const std::string shown = "EXPID IN (" + ids + ")";
  if (settings.filters.empty()) return shown;
  // EXPID is gprofng's expression syntax, which the KEY OP VALUE clauses
  // (thread in 1-2 && time >= 0.5) cannot be joined to.
  analysis::EventSelection filter;
  try {
    filter = analysis::parse_filter_expression(settings.filters);
  } catch (const std::exception& e) {
    throw SettingError("filters", e.what());
  }
  if (!filter.expression)
    throw SettingError("experiments", "choosing experiments takes a filter in gprofng's syntax (THRID IN (1,2) && "
                                      "TSTAMP > 500000000) or none; '" + settings.filters + "' is in the other");
  return "(" + settings.filters + ") && " + shown;
}

SettingsInForce::SettingsInForce(er_print::Session& session) : session_(session) {
  defaults_.metrics = session.metrics_in_force();
  defaults_.sort = session.sort_in_force();
  defaults_.viewmode = analysis::view_mode_name(session.viewmode());
  defaults_.compare = compare_word(session.compare());
}

void SettingsInForce::apply(const PageSettings& settings) {
  er_print::Session& s = session_;
  apply_setting("metrics", [&] { s.set_metrics(or_default(settings.metrics, defaults_.metrics)); });
  apply_setting("sort", [&] { s.set_sort(or_default(settings.sort, defaults_.sort)); });
  apply_setting("viewmode", [&] { s.set_viewmode(or_default(settings.viewmode, defaults_.viewmode)); });
  apply_setting("compare", [&] { s.set_compare(or_default(settings.compare, defaults_.compare)); });
  // A refused list or expression leaves the session's as it was.
  const std::string expression = filter_expression(settings);
  if (expression != filters_)
    apply_setting("filters", [&] {
      s.set_filters(expression.empty() ? "none" : expression);
      filters_ = expression;
    });
  if (settings.threads != threads_)
    apply_setting("threads", [&] {
      s.select_threads(settings.threads.empty() ? "all" : settings.threads);
      threads_ = settings.threads;
    });
}

}  // namespace lumen::analyzer
