#include "hand_built_experiment.h"

#include <gtest/gtest.h>
#include <lumen/record_format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "../../plugins/clock/clock_record.h"
#include "data_file_support.h"

namespace lumen::test {

namespace fs = std::filesystem;

HandBuiltExperiment build_experiment(const fs::path& dir, const std::string& name, int samples,
                                     const std::string& extra_plugins, const std::string& object, uint64_t sample_ns) {
  HandBuiltExperiment e{dir / name, 0};
  fs::create_directories(e.path);
  if (!object.empty()) {
    const lumen_stack_record stack{1, 1, 0};
    const uint64_t pc = 0x401000;
    std::ofstream(e.path / LUMEN_STACKS_FILE, std::ios::binary)
        << make_block(4242, {{LUMEN_RECORD_STACK, bytes_of(stack) + bytes_of(pc)}});
    const lumen_loadobject_record mapped{1'000'000'000ull, 0, 0x400000, 0x500000, LUMEN_LOADOBJECT_MAPPED,
                                         static_cast<uint32_t>(object.size())};
    std::ofstream(e.path / LUMEN_LOADOBJECTS_FILE, std::ios::binary)
        << make_block(4242, {{LUMEN_RECORD_LOADOBJECT, bytes_of(mapped) + object}});
  }
  std::vector<Record> records;
  for (int i = 0; i < samples; ++i) {
    const clock::ClockSplitSample sample{1'000'000'000ull + static_cast<uint64_t>(i) * 10'000'000ull,
                                         object.empty() ? LUMEN_NO_STACK : 1, sample_ns, 0, 4242, 0};
    records.push_back({clock::kSplitSampleRecord, bytes_of(sample)});
    e.cpu_seconds += static_cast<double>(sample_ns) / 1e9;
  }
  std::ofstream(e.path / clock::kDataFile, std::ios::binary) << make_block(4242, records);
  std::ofstream(e.path / "header.yaml") << "format: {major: " << LUMEN_FORMAT_MAJOR << ", minor: " << LUMEN_FORMAT_MINOR
                                        << "}\ncommand: [hand-built]\ntarget_pid: 4242\nplugins:\n"
                                        << "  clock: {version: 1.0, data_file: " << clock::kDataFile << "}\n"
                                        << extra_plugins;
  return e;
}

ProcessResult run_tool(const std::string& tool, const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv{"timeout", "-k", "5", "60", (bin_dir() / tool).string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, env);
}

double total_user_seconds(const ProcessResult& functions_json) {
  try {
    const nlohmann::json view = nlohmann::json::parse(functions_json.out);
    for (const auto& row : view.at("rows"))
      if (row.at("name") == "<Total>") return row.at("values").at("e.totalcpu").get<double>();
  } catch (const std::exception&) {
  }
  return -1;
}

}  // namespace lumen::test
