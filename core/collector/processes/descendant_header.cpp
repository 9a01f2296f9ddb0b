#include "processes/descendant_header.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <iterator>

#include "time/clock.h"
#include "experiment_header.h"
#include "lifecycle/collector_variables.h"
#include "lifecycle/experiment_log.h"

namespace lumen::collector {

std::vector<std::string> command_words() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> words;
  size_t start = 0;
  while (start < raw.size()) {
    const size_t end = raw.find('\0', start);
    words.push_back(raw.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return words;
}

void write_descendant_header(const std::string& directory, const std::string& lineage,
                             const metadata::CollectionPlan& plan) {
  metadata::ProcessFacts facts;
  facts.command = command_words();
  facts.start_wall_ns = metadata::wall_clock_ns();
  facts.start_monotonic_ns = static_cast<long long>(monotonic_ns());
  facts.target_pid = getpid();
  facts.parent_pid = getppid();
  facts.lineage = lineage;
  const std::string rank = rank_in_environment();
  facts.rank = rank.empty() ? -1 : std::strtol(rank.c_str(), nullptr, 10);
  std::string error;
  if (!metadata::write_header_file(directory, metadata::header_text(plan, facts, nullptr), error))
    experiment_log_event(metadata::log_event::kError, "message: " + yaml_quoted(error));
}

}  // namespace lumen::collector
