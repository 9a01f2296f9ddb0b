#include "report_writer.h"

#include <fstream>
#include <stdexcept>

#include "report_assets.h"

namespace lumen::er_html {

namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& file, std::string_view head, std::string_view body, std::string_view tail = "") {
  if (fs::is_symlink(fs::symlink_status(file))) throw std::runtime_error(file.string() + " is a symbolic link; not written");
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << head << body << tail;
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace

void write_report(const fs::path& directory, const nlohmann::json& data) {
  if (fs::is_symlink(fs::symlink_status(directory)))
    throw std::runtime_error(directory.string() + " is a symbolic link; the report is not written through it");
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (!fs::is_directory(directory)) throw std::runtime_error("cannot create the directory " + directory.string());
  for (const EmbeddedAsset& asset : report_assets()) write_file(directory / asset.name, "", asset.text);
  // "</" inside a string would end the script element early.
  std::string json = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (size_t at = 0; (at = json.find("</", at)) != std::string::npos; at += 3) json.replace(at, 2, "<\\/");
  write_file(directory / "data.js", "window.LUMEN_REPORT = ", json, ";\n");
}

}  // namespace lumen::er_html
