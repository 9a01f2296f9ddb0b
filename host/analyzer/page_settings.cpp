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

}  // namespace

void SettingsInForce::apply(const PageSettings& settings) {
  er_print::Session& s = session_;
  apply_setting("metrics", [&] {
    s.set_metrics(settings.metrics.empty() ? analysis::default_metric_spec(s.registry()) : settings.metrics);
  });
  apply_setting("sort", [&] { s.set_sort(settings.sort); });
  apply_setting("viewmode", [&] { s.set_viewmode(settings.viewmode.empty() ? "user" : settings.viewmode); });
  apply_setting("compare", [&] { s.set_compare(settings.compare.empty() ? "off" : settings.compare); });
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
