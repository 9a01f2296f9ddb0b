#include "plugin_view_command.h"

#include <iostream>
#include <memory>
#include <vector>

#include "plugin_view.h"

namespace lumen::er_print {

using namespace analysis;

namespace {

// A plugin defining the view, as its manifest describes it.
struct Definer {
  std::string plugin;
  std::string data_file;
  std::string help;
};

bool holds_data(Session& s, const std::string& plugin) {
  for (const auto& experiment : s.experiments())
    for (const DataFile& file : experiment->data_files())
      if (file.plugin == plugin) return true;
  return false;
}

// A plugin's view of experiments that hold none of its data shows nothing:
// say why rather than print empty figures as if they were measured.
void warn_without_data(const std::string& command, const std::vector<Definer>& definers) {
  std::cerr << "er_print: -" << command << ": no experiment open recorded " << definers.front().plugin << " data";
  for (size_t i = 1; i < definers.size(); ++i) std::cerr << (i == 1 ? " (nor " : " nor ") << definers[i].plugin;
  std::cerr << (definers.size() > 1 ? " data)" : "") << ", so the view is empty\n";
}

// The open experiments whose data file of one of `definers` is gone: their
// view would show zeros that were never measured.
std::vector<std::string> missing_data_of(Session& s, const std::vector<Definer>& definers) {
  std::vector<std::string> missing;
  for (const auto& experiment : s.experiments())
    for (const std::string& plugin : experiment->missing_data())
      for (const Definer& definer : definers)
        if (definer.plugin == plugin)
          missing.push_back(definer.data_file + " of " + experiment->path().string() + " is missing, so there is no " +
                            plugin + " data");
  return missing;
}

Document run_view(Session& s, const std::string& plugin, const std::string& command) {
  // The description may come from a manifest: the half is loaded now.
  const lumen_view_def* loaded = s.plugins().loaded_view(plugin, command);
  if (loaded == nullptr || loaded->run == nullptr) throw CommandError("plugin '" + plugin + "' has no view -" + command);
  return run_plugin_view(*loaded, plugin, s.experiments(), s.structure(), s.plugin_row_limit(), s.record_filter(),
                         {s.decoded_profile(), &s.registry(), s.plugin_readings()});
}

void run_views(Session& s, const std::string& command, const std::vector<Definer>& definers) {
  require_experiments(s);
  std::vector<const Definer*> serving;
  for (const Definer& definer : definers)
    if (holds_data(s, definer.plugin)) serving.push_back(&definer);
  if (serving.empty()) {
    const std::vector<std::string> missing = missing_data_of(s, definers);
    for (const std::string& sentence : missing)
      std::cerr << "er_print: -" << command << ": " << sentence << "; nothing is shown\n";
    if (!missing.empty()) return;
    warn_without_data(command, definers);
    serving.push_back(&definers.front());
  }
  for (const std::string& note : s.record_view_notes(command)) std::cerr << "er_print: " << note << "\n";
  if (serving.size() == 1) {
    s.emit(render(run_view(s, serving.front()->plugin, command), s.format()));
    return;
  }
  std::vector<DocumentSection> sections;
  for (const Definer* definer : serving) {
    sections.push_back({definer->plugin, run_view(s, definer->plugin, command)});
    sections.back().document.title =
        "-" + command + " of " + definer->plugin + " data (" + definer->data_file + "): " + definer->help;
  }
  s.emit(render(command, sections, s.format()));
}

}  // namespace

std::optional<Command> plugin_view_command(const std::string& name, const AnalysisPlugins& plugins) {
  std::vector<Definer> definers;
  std::string help;
  for (const auto& [plugin, half] : plugins.all())
    for (size_t i = 0; i < half->descriptor->view_count; ++i) {
      const lumen_view_def& view = half->descriptor->views[i];
      if (name != view.command) continue;
      definers.push_back({plugin, half->descriptor->data_file, view.help});
      help += (help.empty() ? "" : "; ") + std::string(view.help) + " [" + plugin + "]";
    }
  if (definers.empty()) return std::nullopt;
  if (definers.size() == 1) help = definers.front().help;
  return Command{name, 0, "", help,
                 [definers, name](Session& s, const std::vector<std::string>&) { run_views(s, name, definers); }};
}

}  // namespace lumen::er_print
