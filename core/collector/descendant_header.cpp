#include "descendant_header.h"

#include <lumen/record_format.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <thread>

#include "clock.h"
#include "experiment_log.h"

namespace lumen::collector {

namespace {

std::string command_line_yaml() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string list = "[";
  size_t start = 0;
  while (start < raw.size()) {
    const size_t end = raw.find('\0', start);
    list += (start ? ", " : "") + yaml_quoted(raw.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return list + "]";
}

// The rank a parallel job's launcher gave this process (or its ancestor), or -1.
long job_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long rank = std::strtol(value, &end, 10);
    if (*end == '\0' && rank >= 0) return rank;
  }
  return -1;
}

}  // namespace

void write_descendant_header(const std::string& directory, const std::string& lineage, const std::string& plugins_yaml,
                             const std::string& follow) {
  timespec wall;
  clock_gettime(CLOCK_REALTIME, &wall);
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  std::ofstream out(directory + "/header.yaml.tmp");
  out << "format: {major: " << LUMEN_FORMAT_MAJOR << ", minor: " << LUMEN_FORMAT_MINOR << "}\n"
      << "collector_version: " << LUMEN_VERSION << "\n"
      << "command: " << command_line_yaml() << "\n"
      << "host: " << yaml_quoted(host) << "\n"
      << "cpus: " << std::thread::hardware_concurrency() << "\n"
      << "start_wall_ns: " << static_cast<long long>(wall.tv_sec) * 1000000000LL + wall.tv_nsec << "\n"
      << "start_monotonic_ns: " << monotonic_ns() << "\n"
      << "target_pid: " << getpid() << "\n"
      << "parent_pid: " << getppid() << "\n"
      << "lineage: " << yaml_quoted(lineage) << "\n"
      << "follow: " << yaml_quoted(follow) << "\n";
  if (const long rank = job_rank(); rank >= 0) out << "rank: " << rank << "\n";
  out << "plugins: " << plugins_yaml << "\n";
  out.close();
  std::rename((directory + "/header.yaml.tmp").c_str(), (directory + "/header.yaml").c_str());
}

}  // namespace lumen::collector
