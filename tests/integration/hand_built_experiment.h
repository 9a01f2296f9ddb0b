// Experiments a test builds by hand, byte by byte, to be what an attacker or
// a damaged disk would hand to the analysis tools: a header naming what the
// test wants, and clock samples whose CPU time the test knows.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "process_runner.h"

namespace lumen::test {

struct HandBuiltExperiment {
  std::filesystem::path path;
  double cpu_seconds = 0;  // what its clock samples add up to
};

// `name` under `dir`, holding `samples` clock samples of 10 ms each (thread
// 4242) in the `profile` data file, and a header planning the clock plugin
// plus `extra_plugins` lines (YAML, indented under `plugins:`). With
// `object`, the samples' stack is one PC inside that load object, mapped
// at 0x400000 (so analysis and er_archive look the object up). Each
// sample is `sample_ns` of user CPU time.
HandBuiltExperiment build_experiment(const std::filesystem::path& dir, const std::string& name, int samples,
                                     const std::string& extra_plugins = "", const std::string& object = "",
                                     uint64_t sample_ns = 10'000'000);

// The size of each block of the hand-built data files.
inline constexpr uint64_t kBlockBytes = 64 * 1024;

// Runs an er_* command under `timeout`, so a tool that blocks on what it
// reads fails the test (exit 124) instead of hanging it.
ProcessResult run_tool(const std::string& tool, const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env = {});

// er_print --format=json -functions: <Total>'s e.totalcpu (seconds), or -1.
double total_user_seconds(const ProcessResult& functions_json);

}  // namespace lumen::test
