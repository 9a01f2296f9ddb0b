#include "page_settings.h"

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
  if (settings.filters != filters_)
    apply_setting("filters", [&] {
      s.set_filters(settings.filters.empty() ? "none" : settings.filters);
      filters_ = settings.filters;
    });
  if (settings.threads != threads_)
    apply_setting("threads", [&] {
      s.select_threads(settings.threads.empty() ? "all" : settings.threads);
      threads_ = settings.threads;
    });
}

}  // namespace lumen::analyzer
