// The page's settings, sent with every request so that a URL reproduces its
// view whatever was asked before: each applies to the one session as
// er_print's command of that name would; one left empty is what was in
// force when the page's session began (er_print's default, or the .er.rc
// defaults files' metrics, sort, view mode and compare). A setting that would make the profile be built again (filters,
// threads) is applied only when it differs from the one in force.
#pragma once

#include <optional>
#include <string>

#include "session.h"

namespace lumen::analyzer {

struct PageSettings {
  std::string metrics;   // -metrics SPEC
  std::string sort;      // -sort SPEC
  std::string viewmode;  // -viewmode user|expert|machine
  std::string filters;   // -filters EXPR
  std::string compare;   // -compare on|off|delta|ratio
  std::string threads;   // -thread_select LIST
  // The experiments shown, by id as -exp_list numbers them ("1,3"); empty:
  // all. Applied as -filters' EXPID IN (...), and-ed with `filters`.
  std::string experiments;
};

// A setting the session refused: which one, and er_print's message.
struct SettingError : er_print::CommandError {
  SettingError(std::string setting, const std::string& message)
      : er_print::CommandError(message), setting(std::move(setting)) {}
  std::string setting;
};

class SettingsInForce {
 public:
  // Takes the session's settings now as the page's defaults.
  explicit SettingsInForce(er_print::Session& session);
  // Throws SettingError.
  void apply(const PageSettings& settings);
  const PageSettings& defaults() const { return defaults_; }

 private:
  std::string filter_expression(const PageSettings& settings) const;

  er_print::Session& session_;
  PageSettings defaults_;
  std::string filters_;  // the expression applied; the session starts with none
  std::string threads_;
};

}  // namespace lumen::analyzer
