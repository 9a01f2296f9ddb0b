// The page's questions answered from one er_print session: a view under the
// page's settings as er_print -format json gives it, and what the page
// needs to lay out its tabs. Callers hold one ViewService at a time
// (the server's lock): the session is not shared.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "page_settings.h"
#include "session.h"
#include "view_cache.h"

namespace lumen::analyzer {

// A question the page may not ask, or a view that failed: HTTP 400 with
// the message; `setting` names the page's setting at fault, if one is.
struct ViewError {
  std::string message;
  std::string setting;
};

// The most rows of each table a plugin's view gives the page: a browser
// draws some tens of thousands of shapes (mpi_timeline.js draws 20,000
// calls and needs the next one's start); er_print lists all.
inline constexpr size_t kPluginRowsListed = 20001;

class ViewService {
 public:
  // `output`: the stream `session` writes to. Views answered are kept up
  // to `kept_bytes` (view_cache.h); 0 keeps none, for a caller that asks
  // each view once.
  ViewService(er_print::Session& session, std::ostringstream& output, size_t kept_bytes = 64u << 20);

  // {"view": er_print's JSON or null, "notes": what er_print said on
  // stderr}; throws ViewError.
  // The same command under the same settings is answered from the views
  // kept (view_cache.h), but for source and disassembly, whose files may
  // change on disk.
  std::string view(const std::string& command_line, const PageSettings& settings);
  // Whether the last view() was answered from the views kept.
  bool last_from_cache() const { return last_from_cache_; }
  // {"experiments", "plugin_views", "default_metrics", ...} for the page's
  // tabs and controls, and "events_decoded": whether the events are
  // decoded for the settings of the last view.
  std::string session_summary();
  // Decodes the session's events for the settings of the last view
  // (Session::decode_events): what the server does while the page waits.
  void decode_events() { session_.decode_events(); }

 private:
  std::string answer_view(const std::vector<std::string>& words, const PageSettings& settings);

  er_print::Session& session_;
  std::ostringstream& output_;
  SettingsInForce settings_;
  ViewCache cache_;
  bool last_from_cache_ = false;
};

}  // namespace lumen::analyzer
