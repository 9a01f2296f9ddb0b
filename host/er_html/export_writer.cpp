#include "export_writer.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "page_assets.h"

namespace lumen::er_html {

namespace fs = std::filesystem;

namespace {

void refuse_link(const fs::path& path) {
  if (fs::is_symlink(fs::symlink_status(path)))
    throw std::runtime_error(path.string() + " is a symbolic link; the export is not written through it");
}

void write_file(const fs::path& file, std::string_view text) {
  refuse_link(file);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

// The page reads data.js, in order, before its own script.
std::string exported_page(std::string_view page) {
  const std::string own = "<script src=\"assets/analyzer.js\" defer></script>";
  std::string text(page);
  const size_t at = text.find(own);
  if (at == std::string::npos) throw std::logic_error("the analyzer's page does not load assets/analyzer.js");
  text.insert(at, "<script src=\"data.js\" defer></script>\n");
  return text;
}

}  // namespace

ExportWriter::ExportWriter(const fs::path& directory, const std::string& session_summary) : directory_(directory) {
  refuse_link(directory);
  std::error_code ec;
  fs::create_directories(directory / "assets", ec);
  refuse_link(directory / "assets");
  if (!fs::is_directory(directory / "assets"))
    throw std::runtime_error("cannot create the directory " + (directory / "assets").string());
  for (const EmbeddedAsset& asset : analyzer::page_assets()) {
    if (std::string_view(asset.name) == "index.html") write_file(directory / "index.html", exported_page(asset.text));
    else write_file(directory / "assets" / asset.name, asset.text);
  }
  refuse_link(directory / "data.js");
  data_.open(directory / "data.js", std::ios::binary | std::ios::trunc);
  data_ << "window.LUMEN_EXPORT = {\n\"session\": " << session_summary << ",\n\"views\": {";
}

void ExportWriter::add_view(const std::string& command, const std::string& answer) {
  data_ << (first_view_ ? "\n" : ",\n") << nlohmann::json(command).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
        << ": " << answer;
  first_view_ = false;
}

void ExportWriter::finish(const std::string& about) {
  data_ << "},\n\"about\": " << about << "};\n";
  data_.flush();
  if (!data_) throw std::runtime_error("cannot write " + (directory_ / "data.js").string());
}

}  // namespace lumen::er_html
