#include "counter_encoding.h"

#include <perfmon/pfmlib_perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "sysfs_event.h"
#include "trap_overflow.h"

namespace lumen::hwc {

namespace {

bool pfm_ready() {
  static std::once_flag once;
  static bool ready = false;
  std::call_once(once, [] { ready = pfm_initialize() == PFM_SUCCESS; });
  return ready;
}

perf_event_attr base_attr(uint32_t type, uint64_t config, uint64_t interval) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.sample_period = interval;
  attr.disabled = 1;
  // Only the program's own user-space execution: what perf_event_paranoid 2
  // allows, and what the call stacks describe.
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.wakeup_events = 1;
  return attr;
}

// Encodes a libpfm4 name (e.g. "INST_RETIRED:ANY_P", "pmu::EVENT:UMASK").
bool encode_with_pfm(const std::string& name, uint64_t interval, EncodedCounter* encoded, bool* hardware,
                     bool* uncore) {
  if (!pfm_ready()) return false;
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  char* canonical = nullptr;
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.attr = &attr;
  arg.size = sizeof arg;
  arg.fstr = &canonical;
  if (pfm_get_os_event_encoding(name.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS) return false;
  pfm_event_info_t info;
  std::memset(&info, 0, sizeof info);
  info.size = sizeof info;
  pfm_pmu_info_t pmu;
  std::memset(&pmu, 0, sizeof pmu);
  pmu.size = sizeof pmu;
  *hardware = true;
  *uncore = false;
  if (pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT, &info) == PFM_SUCCESS &&
      pfm_get_pmu_info(info.pmu, &pmu) == PFM_SUCCESS) {
    *hardware = attr.type != PERF_TYPE_SOFTWARE;
    *uncore = pmu.type == PFM_PMU_TYPE_UNCORE;
  }
  encoded->attr = base_attr(attr.type, attr.config, interval);
  encoded->attr.config1 = attr.config1;
  encoded->attr.config2 = attr.config2;
  encoded->event = canonical != nullptr ? canonical : name;
  std::free(canonical);
  return true;
}

// 0, or the errno of opening `attr` for the calling thread (cpu < 0) or on `cpu`.
int try_open(const perf_event_attr& attr, int cpu = -1) {
  const int fd = cpu < 0 ? open_counter(attr, -1) : open_counter_on_cpu(attr, cpu);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

bool per_cpu_requested() {
  const char* value = std::getenv("LUMEN_HWC_COUNT_PER_CPU");
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// CPU-wide and uncore PMUs refuse a sample period (EINVAL, EOPNOTSUPP): what
// they count is no instruction's doing, so such an event is counted and
// polled instead: per task where the kernel allows it, else (and for a sysfs
// PMU only, whose cpumask says where to open it) per CPU. They often refuse
// the exclude bits as well (they count whatever runs).
void settle_sampling(EncodedCounter* counter, const std::string& sysfs_pmu) {
  const int sampling = try_open(counter->attr);
  if (sampling != EINVAL && sampling != EOPNOTSUPP) return;
  perf_event_attr counting = counter->attr;
  counting.sample_period = 0;
  counting.wakeup_events = 0;
  std::vector<int> cpus;
  const bool per_cpu_possible = !sysfs_pmu.empty() && pmu_cpus(kSysfsPmuRoot, sysfs_pmu, &cpus).empty();
  for (const bool per_cpu : {false, true}) {
    if (per_cpu ? !per_cpu_possible : per_cpu_requested() && per_cpu_possible) continue;
    for (const unsigned excluding : {1u, 0u}) {
      counting.exclude_kernel = excluding;
      counting.exclude_hv = excluding;
      counter->counting_error = try_open(counting, per_cpu ? cpus[0] : -1);
      if (counter->counting_error == 0) {
        counter->attr = counting;
        counter->not_program_related = true;
        if (per_cpu) counter->cpus = cpus;
        return;
      }
    }
  }
}

// PMU/EVENT/ through sysfs.
std::string encode_sysfs(const CounterRequest& request, const std::string& pmu, const std::string& event,
                         EncodedCounter* encoded) {
  SysfsEvent sysfs;
  if (std::string problem = read_sysfs_event(kSysfsPmuRoot, pmu, event, &sysfs); !problem.empty())
    return "the counter " + request.name + ": " + problem;
  encoded->attr = base_attr(sysfs.type, sysfs.config[0], request.interval);
  encoded->attr.config1 = sysfs.config[1];
  encoded->attr.config2 = sysfs.config[2];
  char config[96];
  std::snprintf(config, sizeof config, "type %u config 0x%llx", sysfs.type,
                static_cast<unsigned long long>(sysfs.config[0]));
  encoded->event = pmu + " PMU, " + config;
  encoded->hardware = true;
  settle_sampling(encoded, pmu);
  return "";
}

std::string errno_text(int error) {
  const char* name = error == ENOENT ? "ENOENT" : error == EOPNOTSUPP ? "EOPNOTSUPP" : error == EACCES ? "EACCES"
                     : error == EPERM ? "EPERM" : error == EINVAL ? "EINVAL" : error == ENODEV ? "ENODEV" : "";
  return std::string(std::strerror(error)) + (*name ? std::string(", ") + name : "");
}

}  // namespace

std::string encode_counter(const CounterRequest& request, EncodedCounter* encoded) {
  encoded->name = request.name;
  encoded->interval = request.interval;
  std::string pmu, event;
  if (split_pmu_event_name(request.name, &pmu, &event)) return encode_sysfs(request, pmu, event, encoded);
  if (const NamedCounter* named = find_named_counter(request.name)) {
    encoded->hardware = (named->flags & kHardware) != 0;
    if (named->perf_type != UINT32_MAX) {
      encoded->attr = base_attr(named->perf_type, named->perf_config, request.interval);
      encoded->event = named->event;
      if (named->flags & kCountedInKernel) {
        // Excluding the kernel counts none of them; their overflows reach the
        // thread when it runs again (trap_overflow.h).
        if (const std::string obstacle = trap_overflow_obstacle(); !obstacle.empty())
          return "the counter " + request.name + " (" + named->title + ") is counted in the kernel's scheduler: " +
                 obstacle;
        encoded->counted_in_kernel = true;
        encoded->attr.exclude_kernel = 0;
        encoded->attr.sigtrap = 1;
        encoded->attr.remove_on_exec = 1;  // which sigtrap requires
      }
      return "";
    }
    bool hardware = true, uncore = false;
    for (const char* const* raw = named->raw_candidates; raw != nullptr && *raw != nullptr; ++raw)
      if (encode_with_pfm(*raw, request.interval, encoded, &hardware, &uncore)) return "";
    return "the counter " + request.name + " (" + named->title + ") has no event on this machine's PMU";
  }
  bool hardware = true, uncore = false;
  if (encode_with_pfm(request.name, request.interval, encoded, &hardware, &uncore)) {
    encoded->hardware = hardware;
    if (uncore) settle_sampling(encoded, "");
    return "";
  }
  return "unknown counter '" + request.name + "' (collect -h lists the counters of this machine)";
}

int open_counter(const perf_event_attr& attr, int group_fd) {
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC));
}

int open_counter_on_cpu(const perf_event_attr& attr, int cpu) {
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

bool hardware_counters_available(std::string* why) {
  perf_event_attr attr = base_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
  const int fd = open_counter(attr, -1);
  if (fd >= 0) {
    close(fd);
    return true;
  }
  const int error = errno;
  if (why != nullptr) {
    *why = "perf_event_open refuses PERF_COUNT_HW_CPU_CYCLES (" + errno_text(error) + ")";
    if (error == ENOENT || error == EOPNOTSUPP || error == ENODEV)
      *why += ": the kernel has no hardware PMU here, as in many virtual machines and containers";
  }
  return false;
}

std::string counter_obstacle(const EncodedCounter& counter) {
  const int fd =
      counter.cpus.empty() ? open_counter(counter.attr, -1) : open_counter_on_cpu(counter.attr, counter.cpus[0]);
  if (fd >= 0) {
    close(fd);
    return "";
  }
  const int error = errno;
  std::string message = (counter.hardware ? "hardware counter " : "counter ") + counter.name + " (" + counter.event +
                        ") cannot be counted here: perf_event_open: " + errno_text(error);
  if (counter.hardware && (error == ENOENT || error == EOPNOTSUPP || error == ENODEV))
    message += "; this machine has no hardware PMU (as in many virtual machines and containers), but the "
               "software events (task-clock, page-faults, ...) work: collect -h lists them";
  else if ((error == EACCES || error == EPERM) && counter.counted_in_kernel)
    message += "; the kernel counts it in its own code (the scheduler), which only a user with CAP_PERFMON may "
               "count where /proc/sys/kernel/perf_event_paranoid is above 1";
  else if (error == EACCES || error == EPERM)
    message += "; /proc/sys/kernel/perf_event_paranoid forbids it";
  if (counter.counting_error != 0)
    message += "; its PMU cannot sample, and counting it fails too (" + errno_text(counter.counting_error) + ")";
  return message;
}

std::string combination_obstacle(const std::vector<EncodedCounter>& counters) {
  std::vector<const EncodedCounter*> hardware;
  // Counters that do not sample are opened alone, on their own PMU.
  for (const EncodedCounter& c : counters)
    if (c.hardware && !c.not_program_related) hardware.push_back(&c);
  if (hardware.size() < 2) return "";
  std::string names;
  for (const EncodedCounter* c : hardware) names += (names.empty() ? "" : ",") + c->name;
  std::vector<int> fds;
  std::string problem;
  for (const EncodedCounter* c : hardware) {
    perf_event_attr attr = c->attr;
    attr.sample_period = 0;  // counting only
    attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.disabled = fds.empty() ? 1 : 0;
    const int fd = open_counter(attr, fds.empty() ? -1 : fds[0]);
    if (fd < 0) {
      problem = "the PMU cannot count " + names + " together (perf_event_open of " + c->name +
                " in their group: " + errno_text(errno) + ")";
      break;
    }
    fds.push_back(fd);
  }
  if (problem.empty()) {
    ioctl(fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    volatile uint64_t spin = 0;
    for (int i = 0; i < 2000000; ++i) spin = spin + static_cast<uint64_t>(i);
    ioctl(fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    uint64_t values[3 + 64] = {};
    if (read(fds[0], values, sizeof values) > 0 && values[1] > 0 && values[2] == 0)
      problem = "the PMU cannot schedule " + names + " at the same time (their group never ran); collect fewer "
                "of them at once";
  }
  for (const int fd : fds) close(fd);
  return problem;
}

}  // namespace lumen::hwc
