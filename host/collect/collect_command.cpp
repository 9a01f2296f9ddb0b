#include "collect_command.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>

#include "plan_resolution.h"
#include "attached_recording.h"
#include "automatic_plugins.h"
#include "clock_reading.h"
#include "collector_variants.h"
#include "command_line.h"
#include "experiment_directory.h"
#include "exported_function.h"
#include "flag_table.h"
#include "experiment_header.h"
#include "job_founder.h"
#include "experiment_metadata.h"
#include "install_layout.h"
#include "lumen_version.h"
#include "plugin_arguments.h"
#include "plugin_hooks.h"
#include "profile.h"
#include "recording_end.h"
#include "target_launcher.h"
#include "yaml_text.h"

namespace lumen::collect {

namespace fs = std::filesystem;

namespace {

bool works_after_attach(const InstalledPlugin& plugin) {
  return plugin.manifest && plugin.manifest->data().collector.works_after_attach;
}

void remove_planned(CollectionPlan& plan, const std::string& name) {
  std::erase_if(plan.plugins, [&](const PlannedPlugin& p) { return p.name == name; });
}

std::string profile_path(const std::optional<std::string>& profile) {
  const std::string name = profile.value_or("default");
  if (name.find('/') != std::string::npos || fs::path(name).extension() == ".yaml") return name;
  const fs::path shipped = host::profile_directory() / (name + ".yaml");
  if (!fs::exists(shipped)) throw ProfileError("no shipped profile named '" + name + "' in " +
                                               fs::weakly_canonical(host::profile_directory()).string());
  return fs::weakly_canonical(shipped).string();
}

void print_plan(std::ostream& out, const CollectionPlan& plan, const fs::path& experiment,
                const CollectRequest& request) {
  out << "experiment: " << experiment.string() << "\n"
            << "profile: " << plan.profile_path << "\n"
            << "plugins:\n";
  for (const PlannedPlugin& p : plan.plugins) {
    out << "  " << p.name << " " << p.version << " -> " << p.data_file << "\n";
    for (const auto& [key, value] : p.options) out << "    " << key << ": " << value << "\n";
  }
  out << "descendants: " << plan.follow << "\n";
  const RuntimeSettings& r = plan.runtime;
  auto seconds = [](long long ns) { std::ostringstream text; text << ns / 1e9 << " s"; return text.str(); };
  out << "samples: " << (r.sample_period_ns ? seconds(r.sample_period_ns) : "off");
  if (r.sample_signal) out << ", on " << signal_name(r.sample_signal);
  out << "\n";
  if (r.pause_signal)
    out << "pause/resume: " << signal_name(r.pause_signal) << (r.start_paused ? ", starts paused" : "") << "\n";
  if (r.window_start_ns || r.window_end_ns)
    out << "window: " << seconds(r.window_start_ns) << " to "
              << (r.window_end_ns ? seconds(r.window_end_ns) : std::string("the end")) << "\n";
  if (r.size_limit_bytes) out << "size limit: " << r.size_limit_bytes / (1024 * 1024) << " MB\n";
  out << "archive: " << archive_mode_name(r.archive) << "\n";
  out << "target:";
  for (const std::string& a : request.target) out << " " << a;
  out << "\n";
}

// "collect -FLAG" without a value: the owning plugin lists what it accepts.
bool describe_flag_values(const std::map<std::string, InstalledPlugin>& installed, const std::string& flag) {
  for (const auto& [name, plugin] : installed) {
    const auto& d = *plugin.collector.descriptor;
    if (d.flag.flag == nullptr || flag != d.flag.flag || !offers_hook(plugin, "describe_values")) continue;
    const lumen_collector_hooks* hooks = host_hooks(plugin);
    if (hooks == nullptr || hooks->describe_values == nullptr) continue;
    hooks->describe_values([](void*, const char* text) { std::cout << text << "\n"; }, nullptr);
    return true;
  }
  return false;
}

struct StartContext {
  fs::path experiment;
  const CollectionPlan* plan;
  metadata::ProcessFacts* facts;
  // The header's job_key line, for a target whose ranks may found its job
  // on other hosts (which er_cp gathers back by that key).
  std::string job;
};

void write_header(const StartContext& context, const metadata::ProcessEnd* end) {
  std::string error;
  if (!metadata::write_header_file(context.experiment.string(),
                                   metadata::header_text(*context.plan, *context.facts, end) + context.job, error))
    throw std::runtime_error(error);
}

// A job key no other collection has: this host, collect's pid, its start.
std::string collection_job_key(const metadata::ProcessFacts& facts) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return "collect:" + std::string(host) + ":" + std::to_string(getpid()) + ":" + std::to_string(facts.start_wall_ns);
}

std::string hex_of(const std::string& text) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (const unsigned char c : text) hex += {kDigits[c >> 4], kDigits[c & 15]};
  return hex;
}

// What ranks this target launches on other hosts need to record into its
// experiment (target_launcher.h): its path, and, where that is node-local
// there, the plan and the job key to found it with (job_founder_here.h).
// Only where MPI is traced, and not for a rank's own collect.
ForwardedVariables variables_for_remote_ranks(const CollectionPlan& plan, bool is_rank, const fs::path& experiment,
                                              const metadata::ProcessFacts& facts) {
  const bool traces_mpi =
      std::any_of(plan.plugins.begin(), plan.plugins.end(), [](const PlannedPlugin& p) { return p.name == "mpi"; });
  if (!traces_mpi || is_rank) return {};
  std::ifstream in(experiment / metadata::kPlanFile, std::ios::binary);
  const std::string plan_text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {{"LUMEN_MPI_JOB", fs::absolute(experiment).string()},
          {"LUMEN_MPI_JOB_KEY", collection_job_key(facts)},
          {"LUMEN_MPI_PLAN", hex_of(plan_text)}};
}

void on_target_started(int pid, void* opaque) {
  auto* context = static_cast<StartContext*>(opaque);
  context->facts->target_pid = pid;
  write_header(*context, nullptr);
}

}  // namespace

int run_collect(const std::vector<std::string>& args) {
  std::map<std::string, InstalledPlugin> installed;
  try {
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
      if (offers_hook(plugin, "describe_values") && plugin.collector.descriptor->flag.flag)
        describable.insert(plugin.collector.descriptor->flag.flag);
    CollectRequest request = parse_command_line(args, flags, describable);
    if (request.show_version) {
      std::cout << "collect (lumen) " << LUMEN_VERSION << "\n";
      if (request.target.empty()) return 0;
    }
    if (request.show_help) {
      std::cout << usage_text(installed);  // asked for: standard output, as GNU tools do
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
    PlanOrigins origins;
    CollectionPlan plan = resolve_plan(profile, request, installed, &origins);
    check_plan_here(plan, installed, origins);
    if (request.attach_pid != 0) {
      // What comes with a planned plugin (the off-CPU states with the
      // clock), and what the libraries the process has loaded bring (Java
      // profiling in a JVM), but not what needs its calls from the start.
      for (const std::string& name :
           add_automatic_plugins(plan, attach::mapped_object_names(request.attach_pid), request, installed))
        if (!works_after_attach(installed.at(name))) remove_planned(plan, name);
      load_planned_collectors(plan, installed);
      if (request.dry_run) {
        print_plan(std::cout, plan, choose_experiment_path(request.experiment_name, request.directory, request.overwrite), request);
        return 0;
      }
      return record_attached(request, plan, installed);
    }
    const std::string program = resolve_target(request.target[0]);
    if (program.empty()) throw UsageError("cannot find an executable program '" + request.target[0] + "'");
    if (const std::string obstacle = preload_obstacle(program); !obstacle.empty()) throw UsageError(obstacle);
    add_automatic_plugins(plan, target_needed_libraries(program, request.target), request, installed);
    choose_collector_variants(plan, program, request.target, forced_variants);
    load_planned_collectors(plan, installed);
    // Started by a launcher once per rank: the ranks share their job's founder.
    const std::optional<LauncherRank> rank = launcher_rank();
    if (rank && request.overwrite)
      throw UsageError("-O cannot be given to each rank of a parallel job (" + rank->launcher +
                       "): one rank would remove what the others record; remove the old experiment first");
    const fs::path wanted = rank ? experiment_base_path(request.experiment_name, request.directory)
                                 : choose_experiment_path(request.experiment_name, request.directory, request.overwrite);
    if (request.dry_run) {
      print_plan(std::cout, plan, wanted, request);
      return 0;
    }
    if (request.verbose) print_plan(std::cerr, plan, wanted, request);  // the target's stdout stays its own
    if (request.overwrite) remove_replaced_experiment(wanted);
    metadata::ProcessFacts facts;
    facts.command = request.target;
    facts.start_wall_ns = clock_ns(CLOCK_REALTIME);
    facts.start_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
    fs::path experiment;
    if (rank) {
      CollectionPlan job_plan = plan;  // the founder records no process: no plugin of its own
      job_plan.plugins.clear();
      job_plan.left_out.clear();
      experiment = rank_experiment(job_founder(wanted, *rank, metadata::header_text(job_plan, facts, nullptr)), *rank);
      facts.lineage = "_rank" + std::to_string(rank->rank);
      facts.rank = rank->rank;
    } else {
      experiment = create_experiment_directory(wanted);
    }
    plan.origin_ns = clock_ns(CLOCK_MONOTONIC);
    facts.start_monotonic_ns = plan.origin_ns;
    write_runtime_plan(plan, experiment / metadata::kPlanFile);
    std::vector<std::string> preload{fs::weakly_canonical(host::runtime_library()).string()};
    for (const PlannedPlugin& p : plan.plugins) preload.push_back(fs::weakly_canonical(p.collector_path).string());
    std::cerr << "collect: recording "
              << (rank ? (experiment.parent_path().filename() / experiment.filename()).string()
                       : experiment.filename().string())
              << "\n";
    StartContext context{experiment, &plan, &facts, ""};
    const ForwardedVariables to_remote_ranks = variables_for_remote_ranks(plan, rank.has_value(), experiment, facts);
    for (const auto& [name, value] : to_remote_ranks)
      if (name == "LUMEN_MPI_JOB_KEY")
        context.job = "job_key: " + metadata::yaml_scalar(value) + "\n";
    const LaunchResult result = run_target(program, request.target, preload, experiment.string(), to_remote_ranks,
                                           on_target_started, &context);
    metadata::ProcessEnd end;
    end.exited = WIFEXITED(result.wait_status);
    end.exit_code = end.exited ? WEXITSTATUS(result.wait_status) : 0;
    end.signal = WIFSIGNALED(result.wait_status) ? WTERMSIG(result.wait_status) : 0;
    end.end_wall_ns = clock_ns(CLOCK_REALTIME);
    if (plan.runtime.size_limit_bytes != 0) end.size_limit_reached = size_limit_reached(experiment);
    write_header(context, &end);
    finish_recording(experiment, plan);
    exit_like(result.wait_status);
  } catch (const UsageError& e) {
    std::cerr << "collect: " << e.what() << "\n"
              << "collect --help lists the options\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "collect: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace lumen::collect
