// Writes the report directory: index.html, its style and scripts, and
// data.js (the report's data as a script, since a page opened from disk
// may not fetch files beside it).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>

namespace lumen::er_html {

// Creates `directory` if needed; refuses one that is a symbolic link and
// replaces only the files it writes. Throws std::runtime_error.
void write_report(const std::filesystem::path& directory, const nlohmann::json& data);

}  // namespace lumen::er_html
