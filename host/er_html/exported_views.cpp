#include "exported_views.h"

#include <nlohmann/json.hpp>

namespace lumen::er_html {

namespace {

using nlohmann::json;

// The commands of the page's tabs that need no function (analyzer.js
// BUILTIN_TABS).
constexpr const char* kTabCommands[] = {"header", "overview", "functions", "calltree", "lines",
                                        "pcs",    "thread_list", "timeline", "exp_list"};

std::string dumped(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

// The view's answer, or the error the page would have been given.
std::string answer(analyzer::ViewService& views, const std::string& command) {
  try {
    return views.view(command, {});
  } catch (const analyzer::ViewError& e) {
    json error = {{"error", e.message}};
    if (!e.setting.empty()) error["setting"] = e.setting;
    return dumped(error);
  }
}

// The names of the first `count` rows of -functions but <Total>, hottest
// first as the session sorts them.
std::vector<std::string> hottest(const std::string& functions_answer, size_t count) {
  std::vector<std::string> names;
  const json parsed = json::parse(functions_answer, nullptr, false);
  if (parsed.is_discarded() || !parsed.contains("view") || !parsed["view"].is_object()) return names;
  const json& rows = parsed["view"].value("rows", json::array());
  for (const json& row : rows) {
    if (names.size() == count) break;
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string()) continue;
    const std::string name = row["name"].get<std::string>();
    if (name != "<Total>") names.push_back(name);
  }
  return names;
}

}  // namespace

std::string page_quoted(const std::string& name) {
  std::string word = "\"";
  for (const char c : name) word += c == '"' ? std::string("\"'\"'\"") : std::string(1, c);
  return word + "\"";
}

void export_views(analyzer::ViewService& views, const ExportChoice& choice,
                  const std::function<void(const std::string&, const std::string&)>& keep) {
  std::string functions;
  for (const char* command : kTabCommands) {
    std::string text = answer(views, command);
    if (std::string_view(command) == "functions") functions = text;
    keep(command, text);
  }
  const json summary = json::parse(views.session_summary());
  for (const json& view : summary.at("plugin_views")) {
    // An alias of another view has no tab of its own (analyzer.js start()).
    if (view.at("help").get<std::string>().rfind("the same as ", 0) == 0) continue;
    const std::string command = view.at("command").get<std::string>();
    keep(command, answer(views, command));
  }
  for (const std::string& name : hottest(functions, choice.functions)) {
    const std::string word = page_quoted(name);
    keep("csingle " + word, answer(views, "csingle " + word));
    keep("disasm " + word, answer(views, "disasm " + word));
    if (choice.sources) keep("source " + word, answer(views, "source " + word));
  }
}

}  // namespace lumen::er_html
