// collect [options] program [args]: runs a program and records an experiment.
#include <time.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "archive_writer.h"
#include "collection_plan.h"
#include "collector_variants.h"
#include "command_line.h"
#include "experiment_directory.h"
#include "experiment_header.h"
#include "install_layout.h"
#include "plugin_arguments.h"
#include "plugin_hooks.h"
#include "profile.h"
#include "target_launcher.h"

namespace fs = std::filesystem;
using namespace lumen;
using namespace lumen::collect;

namespace {

long long clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void print_usage(const std::map<std::string, InstalledPlugin>& installed) {
  std::cerr << "usage: collect [options] [--] program [args...]\n"
               "  --profile NAME|FILE.yaml  collection profile (shipped: ";
  bool first = true;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(host::profile_directory(), ec)) {
    if (entry.path().extension() != ".yaml") continue;
    std::cerr << (first ? "" : ", ") << entry.path().stem().string();
    first = false;
  }
  std::cerr << "; default: default)\n";
  for (const auto& [name, plugin] : installed)
    if (plugin.collector.descriptor->flag.help) std::cerr << "  " << plugin.collector.descriptor->flag.help << "\n";
  for (const auto& [flag, help] : variant_flags(installed)) std::cerr << "  " << help << "\n";
  std::cerr << "  -S on|off|SECONDS  periodic samples (default 1 s)\n"
               "  -l SIGNAL      a sample point whenever the target receives SIGNAL (SIGUSR1, USR1 or a number)\n"
               "  -y SIGNAL[,r]  SIGNAL toggles pause/resume; starts paused unless ,r\n"
               "  -t [START-]END record only from START to END seconds (suffix m: minutes)\n"
               "  -L MB          stop recording when the experiment reaches MB megabytes (the target runs on)\n"
               "  -A on|off|copy archive the load objects' names and build-ids (copy: the files too; default on)\n";
  std::cerr << "  --plugin DIR   load and use the plugin in DIR (DIR/collector.so, DIR/analysis.so); repeatable\n"
               "  --list-plugins list the plugins found (shipped, LUMEN_PLUGIN_PATH, --plugin, the profile's path:)\n";
  std::cerr << "  -o NAME.er     experiment name (default test.1.er, then the next free number)\n"
               "  -d DIR         directory for the experiment\n"
               "  -C COMMENT     comment recorded in the experiment (repeatable)\n"
               "  -F on|off|all|=REGEX  collect descendant processes (default on; REGEX on their command line)\n"
               "  -n             dry run: print the plan, run nothing\n"
               "  -V             print the version\n";
}

std::string profile_path(const std::optional<std::string>& profile) {
  const std::string name = profile.value_or("default");
  if (name.find('/') != std::string::npos || fs::path(name).extension() == ".yaml") return name;
  const fs::path shipped = host::profile_directory() / (name + ".yaml");
  if (!fs::exists(shipped)) throw ProfileError("no shipped profile named '" + name + "' in " +
                                               fs::weakly_canonical(host::profile_directory()).string());
  return fs::weakly_canonical(shipped).string();
}

void print_plan(const CollectionPlan& plan, const fs::path& experiment, const CollectRequest& request) {
  std::cout << "experiment: " << experiment.string() << "\n"
            << "profile: " << plan.profile_path << "\n"
            << "plugins:\n";
  for (const PlannedPlugin& p : plan.plugins) {
    std::cout << "  " << p.name << " " << p.version << " -> " << p.data_file << "\n";
    for (const auto& [key, value] : p.options) std::cout << "    " << key << ": " << value << "\n";
  }
  std::cout << "descendants: " << plan.follow << "\n";
  const RuntimeSettings& r = plan.runtime;
  auto seconds = [](long long ns) { std::ostringstream text; text << ns / 1e9 << " s"; return text.str(); };
  std::cout << "samples: " << (r.sample_period_ns ? seconds(r.sample_period_ns) : "off");
  if (r.sample_signal) std::cout << ", on " << signal_name(r.sample_signal);
  std::cout << "\n";
  if (r.pause_signal)
    std::cout << "pause/resume: " << signal_name(r.pause_signal) << (r.start_paused ? ", starts paused" : "") << "\n";
  if (r.window_start_ns || r.window_end_ns)
    std::cout << "window: " << seconds(r.window_start_ns) << " to "
              << (r.window_end_ns ? seconds(r.window_end_ns) : std::string("the end")) << "\n";
  if (r.size_limit_bytes) std::cout << "size limit: " << r.size_limit_bytes / (1024 * 1024) << " MB\n";
  std::cout << "archive: " << archive_mode_name(r.archive) << "\n";
  std::cout << "target:";
  for (const std::string& a : request.target) std::cout << " " << a;
  std::cout << "\n";
}

// Whether any process's log says the size limit stopped its recording.
bool size_limit_reached(const fs::path& experiment) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(experiment, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().filename() != "collector.log") continue;
    std::ifstream log(it->path());
    std::string line;
    while (std::getline(log, line))
      if (line.find("event: size_limit_reached") != std::string::npos) return true;
  }
  return false;
}

// -A: what analysis needs of the load objects, once the target is done. A
// failure is reported; the experiment and the exit status stand.
void archive_experiment(const fs::path& experiment, ArchiveMode mode) {
  if (mode == ArchiveMode::off) return;
  try {
    for (const auto& report : lumen::archive::write_archives(experiment, mode == ArchiveMode::copy))
      for (const std::string& missing : report.missing)
        std::cerr << "collect: " << missing << " was removed before it could be archived\n";
  } catch (const std::exception& e) {
    std::cerr << "collect: archiving " << experiment.string() << " failed: " << e.what() << "\n";
  }
}

// "collect -FLAG" without a value: the owning plugin lists what it accepts.
bool describe_flag_values(const std::map<std::string, InstalledPlugin>& installed, const std::string& flag) {
  for (const auto& [name, plugin] : installed) {
    const auto& d = *plugin.collector.descriptor;
    const lumen_collector_hooks* hooks = host_hooks(plugin);
    if (d.flag.flag == nullptr || flag != d.flag.flag || hooks == nullptr || hooks->describe_values == nullptr)
      continue;
    hooks->describe_values([](void*, const char* text) { std::cout << text << "\n"; }, nullptr);
    return true;
  }
  return false;
}

struct StartContext {
  fs::path experiment;
  ExperimentHeader* header;
};

void on_target_started(int pid, void* opaque) {
  auto* context = static_cast<StartContext*>(opaque);
  context->header->target_pid = pid;
  write_header(context->experiment, *context->header, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, InstalledPlugin> installed;
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const PluginArguments plugin_arguments = scan_plugin_arguments(args);
    const Profile profile = read_profile(profile_path(plugin_arguments.profile));
    installed = load_plugins(host::discover_plugin_directories(
        host::plugin_directory(), host::plugin_search_path(std::getenv("LUMEN_PLUGIN_PATH")),
        explicit_plugin_directories(plugin_arguments, profile)));
    check_profile_plugin_names(profile, installed);
    std::set<std::string> flags;
    for (const auto& [name, plugin] : installed)
      if (plugin.collector.descriptor->flag.flag) flags.insert(plugin.collector.descriptor->flag.flag);
    for (const auto& [flag, help] : variant_flags(installed)) flags.insert(flag);
    std::set<std::string> describable;
    for (const auto& [name, plugin] : installed)
      if (const lumen_collector_hooks* hooks = host_hooks(plugin); hooks != nullptr && hooks->describe_values &&
                                                                    plugin.collector.descriptor->flag.flag)
        describable.insert(plugin.collector.descriptor->flag.flag);
    CollectRequest request = parse_command_line(args, flags, describable);
    if (request.show_version) {
      std::cout << "collect (lumen) " << LUMEN_VERSION << "\n";
      if (request.target.empty()) return 0;
    }
    if (request.show_help) {
      print_usage(installed);
      return 0;
    }
    if (request.list_plugins) {
      print_plugin_list(std::cout, installed);
      if (request.target.empty()) return 0;
    }
    if (!request.describe_flag.empty()) {
      if (describe_flag_values(installed, request.describe_flag)) return 0;
      throw UsageError("option -" + request.describe_flag + " needs a value");
    }
    const std::map<std::string, fs::path> forced_variants = take_variant_flags(request, installed);
    CollectionPlan plan = resolve_plan(profile, request, installed);
    check_plan_here(plan, installed);
    const std::string program = resolve_target(request.target[0]);
    if (program.empty()) throw UsageError("cannot find an executable program '" + request.target[0] + "'");
    if (const std::string obstacle = preload_obstacle(program); !obstacle.empty()) throw UsageError(obstacle);
    choose_collector_variants(plan, program, request.target, forced_variants);
    const fs::path wanted = choose_experiment_path(request.experiment_name, request.directory);
    if (request.dry_run) {
      print_plan(plan, wanted, request);
      return 0;
    }
    const fs::path experiment = create_experiment_directory(wanted);
    plan.origin_ns = clock_ns(CLOCK_MONOTONIC);
    write_runtime_plan(plan, experiment / "collector.plan");
    ExperimentHeader header{request.target, request.comments, plan, clock_ns(CLOCK_REALTIME), plan.origin_ns, 0};
    std::vector<std::string> preload{fs::weakly_canonical(host::runtime_library()).string()};
    for (const PlannedPlugin& p : plan.plugins) preload.push_back(fs::weakly_canonical(p.collector_path).string());
    std::cerr << "collect: recording " << experiment.filename().string() << "\n";
    StartContext context{experiment, &header};
    const LaunchResult result = run_target(program, request.target, preload, experiment.string(),
                                           on_target_started, &context);
    TargetEnd end;
    end.exited = WIFEXITED(result.wait_status);
    end.exit_code = end.exited ? WEXITSTATUS(result.wait_status) : 0;
    end.signal = WIFSIGNALED(result.wait_status) ? WTERMSIG(result.wait_status) : 0;
    end.end_wall_ns = clock_ns(CLOCK_REALTIME);
    end.size_limit_reached = plan.runtime.size_limit_bytes != 0 && size_limit_reached(experiment);
    write_header(experiment, header, &end);
    archive_experiment(experiment, plan.runtime.archive);
    exit_like(result.wait_status);
  } catch (const UsageError& e) {
    std::cerr << "collect: " << e.what() << "\n";
    if (!installed.empty()) print_usage(installed);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "collect: " << e.what() << "\n";
    return 2;
  }
}
