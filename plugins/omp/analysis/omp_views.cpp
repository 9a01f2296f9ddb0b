// er_print's OpenMP views, from the trace of every experiment loaded:
//   -omp_preg  per parallel construct, at its source line (Oracle's
//              OMP_preg index object): instances, team size, wall time,
//              the team's work (its implicit tasks), its wait at the
//              region's end, and the imbalance (the longest task less the
//              mean task)
//   -omp_task  per task construct (Oracle's OMP_task): tasks, their run
//              time, the longest, creation to start
//   -omp_states under an OMPT runtime, clock-signal deliveries by the
//              thread's OpenMP state at each (one per clock sample), and
//              by what the analysis made of them: work, overhead, wait,
//              idle, as the metrics and the view modes count them
// Times are the trace's wall times. A region counts when its encountering
// thread and end time are in er_print's selection, a task when the thread
// that ran it and its end are; both are decided, and constructs resolved,
// while their experiment's records are visited.
#include <lumen/analysis_plugin.h>
#include <lumen/analysis_support.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../omp_record.h"
#include "omp_analysis.h"
#include "omp_states.h"
#include "omp_trace.h"
#include "omp_view_modes.h"

namespace lumen::omp {
namespace {

// A construct (a parallel region's, a task's): where the program's code
// reached the runtime, named by its function and source line, with the
// frames of the first stack that reached it, resolved while its
// experiment's records were visited (stack ids and the selection are an
// experiment's own: MPI ranks, descendants).
struct Site {
  std::string name;
  std::vector<std::pair<std::string, std::string>> frames;  // function, load object
};

struct Collected {
  const lumen_view_host* host = nullptr;
  OmpTrace trace;
  bool damaged = false;
  std::vector<Site> sites;
  std::map<std::string, size_t> site_by_key;
  std::unordered_map<uint64_t, size_t> region_site;  // selected regions by id
  std::unordered_map<uint64_t, size_t> task_site;    // selected explicit tasks by id
};

std::string file_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

// The construct a stack reached: its first frame of the program's (the
// runtime's frames left out: an OMPT runtime's callbacks capture stacks
// inside it, libgomp's interposers do not) holds the construct, at the
// line of its call into the runtime, which compilers place at the
// construct's directive. Named "function, line N in "file"" as -lines
// names a line, after the program's function: the first frame that is not
// a body the compiler outlined (clang's .omp_outlined. has no name of the
// function holding it), else the first frame of the program's. A frame
// without a line makes its function the construct.
size_t site_of(Collected& c, uint64_t stack_id, uint64_t time_ns) {
  Site site;
  std::string key;
  if (stack_id == LUMEN_NO_STACK) {
    site.name = key = "<no call stack recorded>";
  } else {
    lumen_frame_name frames[64];
    lumen_frame_line lines[64] = {};
    const size_t count = c.host->stack_frames_at(c.host->context, stack_id, time_ns, frames, std::size(frames));
    if (c.host->stack_lines_at != nullptr) c.host->stack_lines_at(c.host->context, stack_id, time_ns, lines, count);
    std::string first_runtime_frame, function;
    const lumen_frame_line* line = nullptr;
    for (size_t i = 0; i < count; ++i) {
      const std::string name = frames[i].function ? frames[i].function : "";
      if (is_runtime_object(frames[i].load_object)) {
        if (first_runtime_frame.empty()) first_runtime_frame = name;
        continue;
      }
      if (site.frames.empty()) line = &lines[i];
      site.frames.emplace_back(name, frames[i].load_object ? frames[i].load_object : "");
      if (function.empty() && !is_outlined_function(frames[i].function)) function = name;
    }
    if (function.empty() && !site.frames.empty()) function = site.frames.front().first;
    if (function.empty()) function = count == 0 ? "<Unknown>" : first_runtime_frame;
    site.name = function;
    if (line != nullptr && line->file != nullptr && line->line > 0) {
      site.name += ", line " + std::to_string(line->line) + " in \"" + file_name(line->file) + "\"";
      key = std::string(line->file) + ':' + std::to_string(line->line) + '\n' + function;
    } else {
      key = function + '\n' + (site.frames.empty() ? "" : site.frames.front().second);
    }
  }
  const auto [found, added] = c.site_by_key.emplace(key, c.sites.size());
  if (added) c.sites.push_back(std::move(site));
  return found->second;
}

void visit(void* arg, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* c = static_cast<Collected*>(arg);
  if (!c->trace.add(kind, payload, bytes)) {
    c->damaged = true;
    return;
  }
  const lumen_view_host* host = c->host;
  if (kind == kWaitRecord && bytes >= sizeof(OmpWait)) {
    OmpWait wait;
    std::memcpy(&wait, payload, sizeof wait);
    if (wait.end_ns >= wait.begin_ns) c->trace.waits.push_back(wait);  // what the decoder emits
  } else if (is_region_record(kind)) {
    const OmpRegion& region = c->trace.regions.back();
    if (host->selected(host->context, region.end_ns, region.thread_id))
      c->region_site[region.region_id] = site_of(*c, region.call_stack_id, region.begin_ns);
  } else if (kind == kStateRecord) {
    const OmpState& state = c->trace.states.back();
    if (!host->selected(host->context, state.time_ns, state.thread_id)) c->trace.states.pop_back();
  } else if (kind == kExplicitTaskRecord) {
    const OmpExplicitTask& task = c->trace.explicit_tasks.back();
    if (host->selected(host->context, task.end_ns, task.thread_id))
      c->task_site[task.task_id] = site_of(*c, task.create_stack_id, task.create_ns);
  }
}

void row(const lumen_view_host* host, const Site& site, const double* values) {
  std::vector<lumen_frame_name> frames;
  for (const auto& [function, object] : site.frames) frames.push_back({function.c_str(), object.c_str()});
  host->table_row_frames(host->context, site.name.c_str(), values, frames.data(), frames.size());
}

// Runs a view on every record of the trace (read once for all the OpenMP
// views while the selection stays, lumen::kept_reading); says when some
// were damaged.
template <typename Show>
int run_view(const lumen_view_host* host, char* error, size_t error_size, Show show) {
  try {
    std::unique_ptr<Collected> own;
    std::string problem;
    const Collected* read = kept_reading(host, "trace", own, problem, [&](Collected& into) {
      into.host = host;
      host->for_each_record(host->context, visit, &into);
      into.host = nullptr;  // the view's that read it
      return std::string();
    });
    if (read == nullptr) {
      std::snprintf(error, error_size, "%s", problem.c_str());
      return 1;
    }
    const Collected& c = *read;
    show(host, c);
    if (c.damaged) {
      std::snprintf(error, error_size, "some OpenMP records were too short for their kind and were left out");
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

struct SiteTotals {
  size_t site = 0;
  double instances = 0;
  double max_team = 0;
  double wall_ns = 0;
  double work_ns = 0;
  double wait_ns = 0;
  double imbalance_ns = 0;
};


const lumen_view_column kRegionColumns[] = {
    {"count", "Instances", LUMEN_UNIT_COUNT},         {"team", "Max. team", LUMEN_UNIT_COUNT},
    {"wall", "Wall time", LUMEN_UNIT_NANOSECONDS},     {"work", "Work (tasks)", LUMEN_UNIT_NANOSECONDS},
    {"wait", "Wait (end barrier)", LUMEN_UNIT_NANOSECONDS}, {"imbalance", "Imbalance", LUMEN_UNIT_NANOSECONDS},
};

void show_regions(const lumen_view_host* host, const Collected& c) {
  std::unordered_map<uint64_t, std::vector<const OmpTask*>> tasks_of;
  for (const OmpTask& task : c.trace.tasks) tasks_of[task.region_id].push_back(&task);
  // One row per construct: where the encountering call's stack reached the runtime.
  std::map<size_t, SiteTotals> sites;
  double regions = 0;
  for (const OmpRegion& region : c.trace.regions) {
    const auto selected = c.region_site.find(region.region_id);
    if (selected == c.region_site.end()) continue;
    regions += 1;
    SiteTotals& site = sites[selected->second];
    site.site = selected->second;
    site.instances += 1;
    site.wall_ns += static_cast<double>(region.end_ns - region.begin_ns);
    const auto found = tasks_of.find(region.region_id);
    if (found == tasks_of.end()) continue;
    double longest = 0, sum = 0;
    for (const OmpTask* task : found->second) {
      const double duration = static_cast<double>(task->end_ns - task->begin_ns);
      longest = std::max(longest, duration);
      sum += duration;
      if (region.end_ns > task->end_ns) site.wait_ns += static_cast<double>(region.end_ns - task->end_ns);
    }
    const double team = static_cast<double>(found->second.size());
    site.max_team = std::max(site.max_team, team);
    site.work_ns += sum;
    site.imbalance_ns += longest - sum / team;
  }
  host->summary(host->context, "regions", "Parallel regions", regions, LUMEN_UNIT_COUNT);
  host->summary(host->context, "constructs", "Parallel constructs", static_cast<double>(sites.size()),
                LUMEN_UNIT_COUNT);
  std::vector<const SiteTotals*> rows;
  for (const auto& [key, site] : sites) rows.push_back(&site);
  std::sort(rows.begin(), rows.end(), [](const SiteTotals* a, const SiteTotals* b) { return a->work_ns > b->work_ns; });
  if (host->row_limit != 0 && rows.size() > host->row_limit) rows.resize(host->row_limit);
  host->table_begin(host->context, "OpenMP parallel regions (OMP_preg), by construct", kRegionColumns,
                    std::size(kRegionColumns));
  for (const SiteTotals* site : rows) {
    const double values[] = {site->instances, site->max_team, site->wall_ns,
                             site->work_ns,   site->wait_ns,  site->imbalance_ns};
    row(host, c.sites[site->site], values);
  }
}

struct TaskSite {
  size_t site = 0;
  double count = 0;
  double wall_ns = 0;
  double longest_ns = 0;
  double delay_ns = 0;  // from creation to the start of the run
};

const lumen_view_column kTaskColumns[] = {
    {"count", "Tasks", LUMEN_UNIT_COUNT},
    {"time", "Run time", LUMEN_UNIT_NANOSECONDS},
    {"longest", "Longest", LUMEN_UNIT_NANOSECONDS},
    {"delay", "Creation to start", LUMEN_UNIT_NANOSECONDS},
};

void show_tasks(const lumen_view_host* host, const Collected& c) {
  std::map<size_t, TaskSite> sites;
  double tasks = 0;
  for (const OmpExplicitTask& task : c.trace.explicit_tasks) {
    const auto selected = c.task_site.find(task.task_id);
    if (selected == c.task_site.end() || task.end_ns < task.begin_ns) continue;
    tasks += 1;
    TaskSite& site = sites[selected->second];
    site.site = selected->second;
    site.count += 1;
    const double wall = static_cast<double>(task.end_ns - task.begin_ns);
    site.wall_ns += wall;
    site.longest_ns = std::max(site.longest_ns, wall);
    if (task.begin_ns > task.create_ns) site.delay_ns += static_cast<double>(task.begin_ns - task.create_ns);
  }
  host->summary(host->context, "tasks", "Explicit tasks", tasks, LUMEN_UNIT_COUNT);
  host->summary(host->context, "constructs", "Task constructs", static_cast<double>(sites.size()), LUMEN_UNIT_COUNT);
  std::vector<const TaskSite*> rows;
  for (const auto& [key, site] : sites) rows.push_back(&site);
  std::sort(rows.begin(), rows.end(), [](const TaskSite* a, const TaskSite* b) { return a->wall_ns > b->wall_ns; });
  if (host->row_limit != 0 && rows.size() > host->row_limit) rows.resize(host->row_limit);
  host->table_begin(host->context, "OpenMP explicit tasks (OMP_task), by construct", kTaskColumns,
                    std::size(kTaskColumns));
  for (const TaskSite* site : rows) {
    const double values[] = {site->count, site->wall_ns, site->longest_ns, site->delay_ns};
    row(host, c.sites[site->site], values);
  }
}

const lumen_view_column kStateColumns[] = {{"samples", "Clock samples", LUMEN_UNIT_COUNT}};

// Clock samples by the state the OMPT runtime reported at each (one state
// record per delivery of the clock's signal), and by what the analysis
// makes of them (decided_class: the trace's waits first, as the metrics and
// view modes count them). Empty under libgomp, which has no OMPT.
void show_states(const lumen_view_host* host, const Collected& c) {
  const std::vector<OmpWait> recorded = c.trace.outside_explicit_tasks(c.trace.waits);
  const std::vector<OmpWait> implied = c.trace.outside_explicit_tasks(c.trace.implied_waits());
  const TraceWaits waits(recorded, implied);
  std::map<uint32_t, double> by_state;
  double by_class[4] = {};
  for (const OmpState& state : c.trace.states) {
    by_state[state.state] += 1;
    by_class[static_cast<int>(decided_class(state, waits))] += 1;
  }
  host->summary(host->context, "work", "Samples in work", by_class[static_cast<int>(StateClass::kWork)],
                LUMEN_UNIT_COUNT);
  host->summary(host->context, "overhead", "Samples in the runtime's overhead",
                by_class[static_cast<int>(StateClass::kOverhead)], LUMEN_UNIT_COUNT);
  host->summary(host->context, "wait", "Samples waiting", by_class[static_cast<int>(StateClass::kWait)],
                LUMEN_UNIT_COUNT);
  host->summary(host->context, "idle", "Samples idle", by_class[static_cast<int>(StateClass::kIdle)],
                LUMEN_UNIT_COUNT);
  host->table_begin(host->context, "Clock samples by OpenMP state (OMPT)", kStateColumns, std::size(kStateColumns));
  for (const auto& [state, samples] : by_state) {
    const double values[] = {samples};
    host->table_row(host->context, state_name(state), values, LUMEN_NO_STACK);
  }
}

int run_states(const lumen_view_host* host, char* error, size_t error_size) {
  return run_view(host, error, error_size, show_states);
}

int run_regions(const lumen_view_host* host, char* error, size_t error_size) {
  return run_view(host, error, error_size, show_regions);
}

int run_tasks(const lumen_view_host* host, char* error, size_t error_size) {
  return run_view(host, error, error_size, show_tasks);
}

}  // namespace

const lumen_view_def kOmpViews[] = {
    {"omp_preg",
     "per OpenMP parallel construct, at its source line (OMP_preg): instances, team, wall time, work, end-barrier "
     "wait, imbalance (longest minus mean task)",
     run_regions},
    {"omp_task",
     "per OpenMP task construct, at its source line (OMP_task): tasks, run time, longest, creation to start",
     run_tasks},
    {"omp_states",
     "clock samples by the thread's OpenMP state an OMPT runtime (LLVM libomp) reported at each: work, overhead, "
     "waits by kind, idle",
     run_states},
};
const size_t kOmpViewCount = std::size(kOmpViews);

}  // namespace lumen::omp
