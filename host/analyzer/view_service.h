// The page's questions answered from one er_print session: a view under the
// page's settings as er_print -format json gives it, and what the page
// needs to lay out its tabs. Callers hold one ViewService at a time
// (the server's lock): the session is not shared.
#pragma once

#include <sstream>
#include <string>

#include "page_settings.h"
#include "session.h"

namespace lumen::analyzer {

// A question the page may not ask, or a view that failed: HTTP 400 with
// the message; `setting` names the page's setting at fault, if one is.
struct ViewError {
  std::string message;
  std::string setting;
};

class ViewService {
 public:
  // `output`: the stream `session` writes to.
  ViewService(er_print::Session& session, std::ostringstream& output);

  // {"view": er_print's JSON or null, "notes": what er_print said on
  // stderr}; throws ViewError.
  std::string view(const std::string& command_line, const PageSettings& settings);
  // {"experiments", "plugin_views", "default_metrics", "metrics"} for the
  // page's tabs and controls.
  std::string session_summary();

 private:
  er_print::Session& session_;
  std::ostringstream& output_;
  SettingsInForce settings_;
};

}  // namespace lumen::analyzer
