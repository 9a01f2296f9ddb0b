// The page's static files (HTML, style, scripts), compiled in from
// host/analyzer/assets.
#pragma once

#include <span>

#include "embedded_asset.h"

namespace lumen::analyzer {

std::span<const EmbeddedAsset> page_assets();

}  // namespace lumen::analyzer
