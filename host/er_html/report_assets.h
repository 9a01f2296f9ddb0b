// The report's static files (HTML, style, scripts), compiled in from
// host/er_html/assets.
#pragma once

#include <span>

#include "embedded_asset.h"

namespace lumen::er_html {

std::span<const EmbeddedAsset> report_assets();

}  // namespace lumen::er_html
