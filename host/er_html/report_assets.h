// The report's static files (HTML, style, scripts), compiled in from
// host/er_html/assets.
#pragma once

#include <span>
#include <string_view>

namespace lumen::er_html {

struct ReportAsset {
  const char* name;
  std::string_view text;
};

std::span<const ReportAsset> report_assets();

}  // namespace lumen::er_html
