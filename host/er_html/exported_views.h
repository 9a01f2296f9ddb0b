// Which views an export holds: what the analyzer's page asks for when its
// settings are left as they are (every tab's view, every plugin view with
// data), and the views of one function (callers-callees, disassembly,
// and source when asked) for each of the hottest functions.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "view_service.h"

namespace lumen::er_html {

struct ExportChoice {
  size_t functions = 20;  // the hottest functions whose own views are exported
  bool sources = false;   // their annotated source too
};

// Asks `views` each exported view at the session's settings and hands it
// to `keep` as the page names it (the command line the page would send)
// with its answer: the analyzer's JSON, or {"error", "setting"} for a view
// that failed, as the page would have been told.
void export_views(analyzer::ViewService& views, const ExportChoice& choice,
                  const std::function<void(const std::string& command, const std::string& answer)>& keep);

// A function's name as one word of the page's command lines (analyzer.js
// quoted()): in double quotes, a double quote inside given in single quotes.
std::string page_quoted(const std::string& name);

}  // namespace lumen::er_html
