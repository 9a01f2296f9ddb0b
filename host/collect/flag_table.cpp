#include "flag_table.h"

#include <cstdlib>

#include "collector_variants.h"
#include "follow_pattern.h"
#include "install_layout.h"

namespace lumen::collect {

namespace fs = std::filesystem;

namespace {

void check_follow(const std::string& follow) {
  if (follow != "on" && follow != "off" && follow != "all" && (follow.size() < 2 || follow[0] != '='))
    throw UsageError("-F takes on, off, all or =REGEX, not '" + follow + "'");
  if (follow[0] != '=') return;
  metadata::FollowPattern pattern;
  std::string error;
  if (!pattern.compile(follow.substr(1), &error))
    throw UsageError("-F: '" + follow.substr(1) + "' is not a regular expression -F takes: " + error);
}

bool parse_on_off(const std::string& flag, const std::string& value) {
  if (value == "on") return true;
  if (value == "off") return false;
  throw UsageError(flag + " takes on or off, not '" + value + "'");
}

// gprofng's -a: every mode but off archives the load objects' files.
ArchiveMode parse_gprofng_archive(const std::string& value) {
  if (value == "off") return ArchiveMode::off;
  if (value == "on" || value == "ldobjects" || value == "usedldobjects" || value == "src" || value == "usedsrc")
    return ArchiveMode::copy;
  throw UsageError("-a takes off, on, ldobjects, usedldobjects, src or usedsrc, not '" + value + "'");
}

int parse_attach_pid(const std::string& value) {
  char* end = nullptr;
  const long pid = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || pid <= 0 || pid > 4194304)
    throw UsageError("-P takes the id of a running process, not '" + value + "'");
  return static_cast<int>(pid);
}

// Oracle's flags for data this platform cannot give: refused by name, with
// the reason, before anything runs.
Flag refused(const std::string& name, const std::string& reason) {
  return {{name}, "", "", [name, reason](CollectRequest&, const std::string&) {
            throw UsageError(name + " is not offered: " + reason);
          }};
}

std::vector<Flag> make_table() {
  using R = CollectRequest&;
  using V = const std::string&;
  return {
      {{"--profile"}, "NAME|FILE.yaml", "collection profile", [](R r, V v) { r.profile = v; }},
      {{"-S"}, "on|off|SECONDS", "periodic samples (default 1 s)",
       [](R r, V v) { r.runtime.sample_period_ns = parse_sample_period(v); }},
      {{"-l"}, "SIGNAL", "a sample point whenever the target receives SIGNAL (SIGUSR1, USR1 or a number)",
       [](R r, V v) { r.runtime.sample_signal = v == "off" ? 0 : parse_signal("-l", v); }},
      {{"-y"}, "SIGNAL[,r]", "SIGNAL toggles pause/resume; starts paused unless ,r",
       [](R r, V v) { parse_pause_signal(v, r.runtime); }},
      {{"-t"}, "[START-]END", "record only from START to END seconds (suffix m: minutes)",
       [](R r, V v) { parse_window(v, r.runtime); }},
      {{"-L"}, "MB", "stop recording when the experiment reaches MB megabytes (the target runs on)",
       [](R r, V v) { r.runtime.size_limit_bytes = parse_size_limit(v); }},
      {{"-A"}, "on|off|copy", "copy the load objects the data touched into the experiment (copy: the same; default on)",
       [](R r, V v) { r.runtime.archive = parse_archive_mode(v); }},
      {{"--plugin"}, "DIR", "load and use the plugin in DIR (DIR/collector.so, DIR/analysis.so); repeatable",
       [](R r, V v) { r.plugin_paths.push_back(v); }},
      {{"--list-plugins"}, "", "list the plugins found (shipped, LUMEN_PLUGIN_PATH, --plugin, the profile's path:)",
       [](R r, V) { r.list_plugins = true; }},
      {{"-J"}, "\"JVM OPTIONS\"", "options for every JVM the target starts (turns Java profiling, -j, on)",
       [](R r, V v) { r.plugin_options.push_back({"j", "jvm_options", v, "-J"}); }},
      {{"-k"}, "on|off", "the kernel's frames in clock profiling's stacks, where perf_event allows (default on)",
       [](R r, V v) {
         parse_on_off("-k", v);
         r.plugin_options.push_back({"p", "kernel_frames", v, "-k", false});
       }},
      {{"-P"}, "PID", "attach to the running process PID instead of starting a program (until -t's END, or ^C)",
       [](R r, V v) { r.attach_pid = parse_attach_pid(v); }},
      {{"-o"}, "NAME.er", "experiment name (default test.1.er, then the next free number)",
       [](R r, V v) { r.experiment_name = v; }},
      {{"-O"}, "NAME.er", "the same as -o, but replace an experiment of that name",
       [](R r, V v) {
         r.experiment_name = v;
         r.overwrite = true;
       }},
      {{"-d"}, "DIR", "directory for the experiment", [](R r, V v) { r.directory = v; }},
      {{"-C"}, "COMMENT", "comment recorded in the experiment (repeatable)", [](R r, V v) { r.comments.push_back(v); }},
      {{"-F"}, "on|off|all|=REGEX", "collect descendant processes (default on; REGEX on their command line)",
       [](R r, V v) {
         check_follow(v);
         r.follow = v;
       }},
      {{"-a"}, "off|on|ldobjects|usedldobjects|src|usedsrc",
       "gprofng's archiving: off is -A off, the others -A copy (sources are found by path, not copied)",
       [](R r, V v) { r.runtime.archive = parse_gprofng_archive(v); }},
      {{"-n"}, "", "dry run: print the plan, run nothing", [](R r, V) { r.dry_run = true; }},
      {{"--verbose"}, "on|off", "print the plan on standard error before the target runs",
       [](R r, V v) { r.verbose = parse_on_off("--verbose", v); }},
      {{"-v"}, "", "the same as --verbose on", [](R r, V) { r.verbose = true; }},
      refused("-c", "count data needs binary instrumentation, which lumen does not do"),
      refused("-I", "it names the instrumented libraries of count data (-c), which lumen does not record"),
      refused("-r", "data-race and deadlock detection needs compiler instrumentation, which lumen does not use"),
      refused("-x", "lumen does not stop the target for a debugger; run collect itself under the debugger"),
      refused("-g", "experiment groups are not kept; give er_print the experiments themselves"),
      {{"-V", "--version"}, "", "print the version", [](R r, V) { r.show_version = true; }},
      {{"--help", "-help"}, "", "", [](R r, V) { r.show_help = true; }},
  };
}

std::string help_line(const std::string& usage, const std::string& help) {
  return "  " + usage + std::string(usage.size() < 26 ? 26 - usage.size() : 1, ' ') + help + "\n";
}

std::string shipped_profiles() {
  std::string names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(host::profile_directory(), ec))
    if (entry.path().extension() == ".yaml") names += (names.empty() ? "" : ", ") + entry.path().stem().string();
  return names;
}

}  // namespace

const std::vector<Flag>& flag_table() {
  static const std::vector<Flag> table = make_table();
  return table;
}

const Flag* find_flag(const std::string& arg) {
  const size_t equals = arg.find('=');
  const std::string name = arg.rfind("--", 0) == 0 && equals != std::string::npos ? arg.substr(0, equals) : arg;
  for (const Flag& flag : flag_table())
    for (const std::string& n : flag.names)
      if (n == name && (n == arg || !flag.is_switch())) return &flag;
  return nullptr;
}

std::string usage_text(const std::map<std::string, InstalledPlugin>& installed) {
  std::string text = "usage: collect [options] [--] program [args...]\n";
  for (const Flag& flag : flag_table()) {
    if (flag.help.empty()) continue;
    std::string usage;
    for (const std::string& name : flag.names) usage += (usage.empty() ? "" : ", ") + name;
    if (!flag.is_switch()) usage += " " + flag.value;
    text += help_line(usage, flag.help);
    if (flag.names[0] != "--profile") continue;
    text += help_line("", "(shipped: " + shipped_profiles() + "; default: default)");
    for (const auto& [name, plugin] : installed)
      if (plugin.collector.descriptor->flag.help) text += "  " + std::string(plugin.collector.descriptor->flag.help) + "\n";
    for (const auto& [variant_flag, help] : variant_flags(installed)) text += "  " + help + "\n";
  }
  return text;
}

}  // namespace lumen::collect
