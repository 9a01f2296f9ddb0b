// A file compiled into a command (a page's HTML, style and scripts), as
// cmake/embed_assets.cmake writes them: its name and its text.
#pragma once

#include <string_view>

namespace lumen {

struct EmbeddedAsset {
  const char* name;
  std::string_view text;
};

}  // namespace lumen
