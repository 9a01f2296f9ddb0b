#include "view_service.h"

#include <iostream>

#include <nlohmann/json.hpp>

#include "metric_spec.h"
#include "offered_views.h"
#include "script.h"

namespace lumen::analyzer {

namespace {

// What the session writes to std::cerr while it lives (its notes on a
// view: an empty selection, data missing), for the page.
class CapturedNotes {
 public:
  CapturedNotes() : previous_(std::cerr.rdbuf(notes_.rdbuf())) {}
  ~CapturedNotes() { std::cerr.rdbuf(previous_); }
  std::string text() const { return notes_.str(); }

 private:
  std::ostringstream notes_;
  std::streambuf* previous_;
};

std::string taken(std::ostringstream& output) {
  std::string text = output.str();
  output.str("");
  output.clear();
  return text;
}

}  // namespace

ViewService::ViewService(er_print::Session& session, std::ostringstream& output, size_t kept_bytes)
    : session_(session), output_(output), settings_(session), cache_(kept_bytes) {
  session_.set_format("json");
  session_.cap_plugin_rows(kPluginRowsListed);
}

std::string ViewService::view(const std::string& command_line, const PageSettings& settings) {
  last_from_cache_ = false;
  std::vector<std::string> words;
  try {
    words = er_print::split_words(command_line);
  } catch (const std::exception& e) {
    throw ViewError{e.what(), ""};
  }
  const bool keepable = !words.empty() && words[0] != "source" && words[0] != "disasm";
  std::string key;
  for (const std::string* part : {&command_line, &settings.metrics, &settings.sort, &settings.viewmode,
                                  &settings.filters, &settings.compare, &settings.threads, &settings.experiments})
    key += *part + '\0';
  if (keepable)
    if (auto kept = cache_.find(key)) {
      last_from_cache_ = true;
      return *kept;
    }
  std::string answer = answer_view(words, settings);
  if (keepable) cache_.keep(key, answer);
  return answer;
}

std::string ViewService::answer_view(const std::vector<std::string>& words, const PageSettings& settings) {
  CapturedNotes notes;
  taken(output_);
  std::string failed_setting;
  try {
    const er_print::Command command = offered_view(words, session_.plugins());
    try {
      settings_.apply(settings);
    } catch (const SettingError& e) {
      failed_setting = e.setting;
      throw;
    }
    command.run(session_, std::vector<std::string>(words.begin() + 1, words.end()));
    session_.flush_views();
  } catch (const std::exception& e) {
    session_.flush_views();
    taken(output_);
    std::string message = e.what();
    // A filter naming no function is found when the profile is built.
    if (failed_setting.empty() && message.rfind("-filters", 0) == 0) failed_setting = "filters";
    throw ViewError{message, failed_setting};
  }
  const std::string json = taken(output_);
  return "{\"notes\": " + nlohmann::json(notes.text()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ",\n\"view\": " + (json.empty() ? "null" : json) + "}\n";
}

std::string ViewService::session_summary() {
  nlohmann::json summary;
  summary["experiments"] = nlohmann::json::array();
  for (const auto& experiment : session_.experiments()) summary["experiments"].push_back(experiment->path().string());
  summary["plugin_views"] = nlohmann::json::array();
  for (const PluginView& view : plugin_views_with_data(session_))
    summary["plugin_views"].push_back({{"command", view.command}, {"plugin", view.plugin}, {"help", view.help}});
  summary["default_metrics"] = settings_.defaults().metrics;
  summary["default_sort"] = settings_.defaults().sort;
  summary["default_viewmode"] = settings_.defaults().viewmode;
  summary["default_compare"] = settings_.defaults().compare;
  summary["events_decoded"] = session_.events_decoded();
  return summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace lumen::analyzer
