// er_kernel's command line:
//   er_kernel [-p on|hi|lo|MS] [-t SECONDS] [-o NAME] [-d DIR] [-A on|off|copy]
//             [-C COMMENT] [-- COMMAND ARGS...]
// -p is the sampling interval of every CPU (on: 10 ms, hi: 1 ms, lo: 100
// ms, or milliseconds); -t how long to record; with a command, recording
// lasts while it runs (and at most -t).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "collection_plan.h"

namespace lumen::kernel {

struct KernelUsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct KernelOptions {
  unsigned long long interval_ns = 10'000'000;
  std::string interval_text = "on";
  std::optional<double> duration_s;
  std::optional<std::string> name, directory;
  metadata::ArchiveMode archive = metadata::ArchiveMode::on;
  std::vector<std::string> comments;
  std::vector<std::string> command;
  bool help = false;
};

// Throws KernelUsageError saying what is wrong with which option.
KernelOptions parse_kernel_options(const std::vector<std::string>& args);

const char* kernel_usage();

}  // namespace lumen::kernel
