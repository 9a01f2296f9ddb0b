// An export on disk: DIR/index.html (the analyzer's page, which reads
// data.js before its own script), DIR/assets/ (its scripts and style) and
// DIR/data.js, `window.LUMEN_EXPORT = {session, views, about}`, written
// view by view so that no more than one view is held at a time.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace lumen::er_html {

class ExportWriter {
 public:
  // Creates `directory` (or writes into it, replacing an earlier export's
  // files); refuses a directory or file that is a symbolic link. The page's
  // own session summary (view_service.h) starts data.js.
  ExportWriter(const std::filesystem::path& directory, const std::string& session_summary);
  // One view, named as the page asks for it.
  void add_view(const std::string& command, const std::string& answer);
  // Ends data.js with `about` (a JSON object: what the export holds, for
  // the page's notes). Throws if anything could not be written.
  void finish(const std::string& about);

 private:
  std::filesystem::path directory_;
  std::ofstream data_;
  bool first_view_ = true;
};

}  // namespace lumen::er_html
