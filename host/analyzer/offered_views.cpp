#include "offered_views.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "command_lookup.h"
#include "plugin_view_command.h"

namespace lumen::analyzer {

using er_print::Command;
using er_print::CommandError;

namespace {

// er_print's views that read and write nothing but their output.
constexpr std::array<std::string_view, 24> kReadOnlyViews = {
    "functions", "callers-callees", "csingle",   "calltree", "source",     "disasm",      "lines",   "pcs",
    "overview",  "header",          "statistics", "thread_list", "cpu_list", "exp_list", "metric_list", "fsummary",
    "fsingle",   "objects",         "object_list", "samples", "lsummary",   "psummary",    "timeline",
    "event_list"};

bool builtin(const std::string& name) {
  return std::any_of(er_print::command_table().begin(), er_print::command_table().end(),
                     [&](const Command& c) { return c.name == name; });
}

bool read_only_view(const std::string& name) {
  return std::find(kReadOnlyViews.begin(), kReadOnlyViews.end(), name) != kReadOnlyViews.end();
}

}  // namespace

Command offered_view(const std::vector<std::string>& words, const analysis::AnalysisPlugins& plugins) {
  if (words.empty()) throw CommandError("no command: cmd names a view, such as functions");
  const Command command = er_print::resolve_command(words[0], words[0], plugins);
  const bool offered = builtin(command.name) ? read_only_view(command.name)
                                             : er_print::plugin_view_command(command.name, plugins).has_value();
  if (!offered)
    throw CommandError("'" + command.name + "' is not offered by the analyzer, which shows views and changes settings "
                       "through the page alone (it writes no file and opens no path)");
  const size_t given = words.size() - 1;
  if (given < command.argument_count || given > command.argument_count + command.optional_count)
    throw CommandError(command.name + " takes " + (command.arguments.empty() ? "no arguments" : command.arguments));
  return command;
}

std::vector<PluginView> plugin_views_with_data(er_print::Session& session) {
  std::vector<PluginView> views;
  for (const auto& [plugin, half] : session.plugins().all()) {
    bool holds = false;
    for (const auto& experiment : session.experiments())
      for (const auto& file : experiment->data_files()) holds |= file.plugin == plugin;
    if (!holds) continue;
    for (size_t i = 0; i < half->descriptor->view_count; ++i) {
      const lumen_view_def& view = half->descriptor->views[i];
      const bool listed = std::any_of(views.begin(), views.end(), [&](const PluginView& v) { return v.command == view.command; });
      // A plugin's view shadowed by a built-in command of that name is not its.
      if (!listed && !builtin(view.command))
        views.push_back({view.command, plugin, view.help});
    }
  }
  return views;
}

}  // namespace lumen::analyzer
