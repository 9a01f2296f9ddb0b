#include "plugin_arguments.h"

#include <filesystem>
#include <ostream>

#include "flag_table.h"

namespace lumen::collect {

namespace fs = std::filesystem;

namespace {

const char* unit_name(lumen_metric_unit unit) {
  switch (unit) {
    case LUMEN_UNIT_NANOSECONDS: return "time";
    case LUMEN_UNIT_COUNT: return "count";
    case LUMEN_UNIT_BYTES: return "bytes";
    case LUMEN_UNIT_RATIO: return "ratio";
  }
  return "?";
}

std::string flavor_letters(uint32_t flavors) {
  std::string letters;
  if (flavors & LUMEN_FLAVOR_EXCLUSIVE) letters += "e";
  if (flavors & LUMEN_FLAVOR_INCLUSIVE) letters += "i";
  if (flavors & LUMEN_FLAVOR_ATTRIBUTED) letters += "a";
  return letters;
}

}  // namespace

PluginArguments scan_plugin_arguments(const std::vector<std::string>& args) {
  PluginArguments found;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--" || arg.empty() || arg[0] != '-') break;
    if (const Flag* flag = find_flag(arg); flag != nullptr && flag->is_switch()) continue;
    const size_t equals = arg.find('=');
    const bool joined = arg.rfind("--", 0) == 0 && equals != std::string::npos;
    const std::string name = joined ? arg.substr(0, equals) : arg;
    if (!joined && i + 1 >= args.size()) break;  // the full parse reports the missing value
    const std::string value = joined ? arg.substr(equals + 1) : args[++i];
    if (name == "--plugin") found.plugin_paths.push_back(value);
    else if (name == "--profile") found.profile = value;
  }
  return found;
}

std::vector<host::PluginDirectory> explicit_plugin_directories(const PluginArguments& arguments,
                                                               const Profile& profile) {
  std::vector<host::PluginDirectory> directories;
  for (const std::string& path : arguments.plugin_paths)
    directories.push_back(host::explicit_plugin_directory(path, fs::current_path()));
  const fs::path profile_directory = fs::absolute(profile.path).parent_path();
  for (const auto& [name, settings] : profile.plugins) {
    if (settings.path.value.empty()) continue;
    try {
      directories.push_back(host::explicit_plugin_directory(settings.path.value, profile_directory));
    } catch (const host::PluginError& e) {
      throw ProfileError(profile.path + ":" + std::to_string(settings.path.line) + ": plugin '" + name +
                         "': " + e.what());
    }
  }
  return directories;
}

void check_profile_plugin_names(const Profile& profile, const std::map<std::string, InstalledPlugin>& plugins) {
  const fs::path profile_directory = fs::absolute(profile.path).parent_path();
  for (const auto& [name, settings] : profile.plugins) {
    if (settings.path.value.empty()) continue;
    const fs::path written = settings.path.value;
    const fs::path directory = fs::weakly_canonical(written.is_absolute() ? written : profile_directory / written);
    for (const auto& [loaded_name, plugin] : plugins) {
      if (plugin.files.directory != directory || loaded_name == name) continue;
      throw ProfileError(profile.path + ":" + std::to_string(settings.path.line) + ": the plugin in " +
                         directory.string() + " is named '" + loaded_name + "', not '" + name + "'");
    }
  }
}

void print_plugin_list(std::ostream& out, const std::map<std::string, InstalledPlugin>& plugins) {
  for (const auto& [name, plugin] : plugins) {
    const lumen_collector_descriptor& c = *plugin.collector.descriptor;
    const lumen_analysis_descriptor& a = *plugin.analysis.descriptor;
    out << name << " " << c.version << "  data file: " << c.data_file;
    if (c.flag.flag != nullptr) out << "  flag: -" << c.flag.flag;
    out << "\n  " << (c.description ? c.description : "") << "\n"
        << "  from: " << plugin.files.directory.string() << " (" << host::origin_name(plugin.files.origin) << ")\n";
    for (size_t i = 0; i < c.option_count; ++i)
      out << "  option " << c.options[i].name << " (default " << c.options[i].default_value << ")\n";
    for (size_t i = 0; i < a.metric_count; ++i)
      out << "  metric " << a.metrics[i].keyword << "  " << a.metrics[i].title << "  [" << unit_name(a.metrics[i].unit)
          << ", " << flavor_letters(a.metrics[i].flavors) << "]\n";
    for (size_t i = 0; i < a.view_count; ++i) out << "  view -" << a.views[i].command << "\n";
  }
}

}  // namespace lumen::collect
