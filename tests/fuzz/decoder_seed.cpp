// Seeds for the plugin decoder fuzzer from a recorded experiment: for each
// plugin the header names whose data file is there, OUT_DIR/NAME-LABEL.seed
// (decoder_input.h) with its options, the experiment's facts and up to
// MAX_BYTES (default 16384) of its records, in file order.
//
//   lumen_decoder_seed EXPERIMENT OUT_DIR LABEL [MAX_BYTES]
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "data_file_reader.h"
#include "decoder_input.h"
#include "experiment_format.h"
#include "experiment_metadata.h"
#include "format_error.h"

namespace fs = std::filesystem;
namespace header = lumen::metadata::header;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s EXPERIMENT OUT_DIR LABEL [MAX_BYTES]\n", argv[0]);
    return 2;
  }
  const fs::path experiment = argv[1], out_dir = argv[2];
  const std::string label = argv[3];
  const size_t max_bytes = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 16384;
  try {
    const YAML::Node head = lumen::analysis::read_experiment_header(experiment);
    std::string recorded;
    for (const auto& plugin : head[header::kPlugins]) recorded += (recorded.empty() ? "" : ",") + plugin.first.as<std::string>();
    for (const auto& plugin : head[header::kPlugins]) {
      const std::string name = plugin.first.as<std::string>();
      const fs::path data = experiment / plugin.second["data_file"].as<std::string>("");
      if (!fs::is_regular_file(data)) continue;
      std::string seed = name + "\n";
      for (const auto& option : plugin.second["options"])
        seed += option.first.as<std::string>() + "=" + option.second.as<std::string>() + "\n";
      for (const char* fact : {header::kClockMhz, header::kCpus, header::kStartWallNs, header::kStartMonotonicNs})
        if (head[fact]) seed += std::string(".") + fact + "=" + head[fact].as<std::string>() + "\n";
      seed += ".recorded=" + recorded + "\n\n";
      // Each record kind gets an equal share of the bytes, taken from its
      // first records: a file that starts with thousands of one kind still
      // gives a seed of every kind.
      std::map<uint16_t, size_t> left;
      lumen::analysis::read_data_file(data, [&](const lumen::analysis::RawRecord& r) { left[r.kind] = 0; });
      for (auto& [kind, bytes] : left) bytes = max_bytes / left.size();
      const size_t records_start = seed.size();
      lumen::analysis::read_data_file(data, [&](const lumen::analysis::RawRecord& r) {
        const size_t bytes = lumen::fuzz::kRecordHeaderBytes + r.payload_bytes;
        if (bytes > left[r.kind]) {
          left[r.kind] = 0;
          return;
        }
        left[r.kind] -= bytes;
        lumen::fuzz::append_record(seed, r.kind, r.block_thread_id, r.payload, r.payload_bytes);
      });
      const fs::path out = out_dir / (name + "-" + label + ".seed");
      std::ofstream(out, std::ios::binary) << seed;
      std::printf("%s: %zu bytes of records\n", out.c_str(), seed.size() - records_start);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
