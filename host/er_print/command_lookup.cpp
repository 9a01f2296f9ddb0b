#include "command_lookup.h"

#include <algorithm>
#include <vector>

namespace lumen::er_print {

namespace {

// Every command name: the built-in ones, then the loaded plugins' views.
std::vector<std::string> command_names(const analysis::AnalysisPlugins& plugins) {
  std::vector<std::string> names;
  for (const Command& c : command_table()) names.push_back(c.name);
  for (const auto& [plugin, half] : plugins.all())
    for (size_t i = 0; i < half->descriptor->view_count; ++i) names.push_back(half->descriptor->views[i].command);
  return names;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) text += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + names[i];
  return text;
}

// The names within a third of the word's length in edits (at least one).
std::vector<std::string> nearest(const std::string& word, const std::vector<std::string>& names) {
  const size_t allowed = std::max<size_t>(1, word.size() / 3);
  std::vector<std::pair<size_t, std::string>> close;
  for (const std::string& name : names)
    if (const size_t d = edit_distance(word, name); d <= allowed) close.emplace_back(d, name);
  std::sort(close.begin(), close.end());
  std::vector<std::string> result;
  for (const auto& [distance, name] : close)
    if (result.size() < 3) result.push_back(name);
  return result;
}

}  // namespace

Command resolve_command(const std::string& word, const std::string& written, const analysis::AnalysisPlugins& plugins) {
  if (std::optional<Command> exact = find_command(word, plugins)) return *exact;
  const std::vector<std::string> names = command_names(plugins);
  std::vector<std::string> prefixed;
  for (const std::string& name : names)
    if (!word.empty() && name.rfind(word, 0) == 0 && std::find(prefixed.begin(), prefixed.end(), name) == prefixed.end())
      prefixed.push_back(name);
  if (prefixed.size() == 1) return *find_command(prefixed[0], plugins);
  if (prefixed.size() > 1)
    throw CommandError("'" + written + "' is ambiguous: " + quoted_list(prefixed) + " (er_print -help lists them)");
  const std::vector<std::string> close = nearest(word, names);
  throw CommandError("unknown command '" + written + "'" +
                     (close.empty() ? std::string() : "; did you mean " + quoted_list(close) + "?") +
                     " (er_print -help lists them)");
}

}  // namespace lumen::er_print
