// Builds a large clock experiment for bench/analysis/analysis_speed.sh from a
// real one: copies SOURCE's files (header, load objects, stacks, samples,
// logs) into DEST and writes DEST/profile with EVENTS clock samples, each a
// copy of a sample drawn at random from SOURCE/profile (same stack, thread,
// CPU, CPU time), with times spread evenly over SOURCE's samples' span. The
// stacks are the real program's, so symbols resolve and the distribution of
// stacks is the recorded one; only the count of events is scaled.
//   clock_experiment_gen SOURCE.er DEST.er EVENTS
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <vector>

#include "core/include/lumen/record_format.h"
#include "plugins/clock/clock_record.h"

namespace fs = std::filesystem;
using lumen::clock::ClockSplitSample;
using Sample = ClockSplitSample;

static std::vector<Sample> read_samples(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Sample> out;
  size_t block = 0;
  while (block + sizeof(lumen_block_header) <= data.size()) {
    lumen_block_header h;
    std::memcpy(&h, data.data() + block, sizeof h);
    if (h.magic != LUMEN_BLOCK_MAGIC || h.block_bytes < sizeof h) break;
    size_t end = std::min(block + h.block_bytes, data.size());
    size_t at = block + sizeof h;
    while (at + 4 <= end) {
      uint32_t word;
      std::memcpy(&word, data.data() + at, 4);
      if (word == 0) break;
      uint16_t bytes = lumen_record_payload_bytes(word);
      if (at + lumen_record_span(bytes) > end) break;
      if (lumen_record_kind(word) == lumen::clock::kSplitSampleRecord && bytes >= sizeof(Sample)) {
        Sample s;
        std::memcpy(&s, data.data() + at + 4, sizeof s);
        out.push_back(s);
      }
      at += lumen_record_span(bytes);
    }
    block += h.block_bytes;
  }
  return out;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: clock_experiment_gen SOURCE.er DEST.er EVENTS\n";
    return 2;
  }
  const fs::path src = argv[1], dst = argv[2];
  const uint64_t events = std::strtoull(argv[3], nullptr, 10);
  std::vector<Sample> samples = read_samples(src / lumen::clock::kDataFile);
  if (samples.empty()) {
    std::cerr << "no clock samples in " << src / lumen::clock::kDataFile << "\n";
    return 1;
  }
  fs::create_directories(dst);
  for (const auto& entry : fs::directory_iterator(src))
    if (entry.is_regular_file() && entry.path().filename() != lumen::clock::kDataFile)
      fs::copy_file(entry.path(), dst / entry.path().filename(), fs::copy_options::overwrite_existing);

  uint64_t t_first = UINT64_MAX, t_last = 0;
  for (const auto& s : samples) {
    t_first = std::min(t_first, s.time_ns);
    t_last = std::max(t_last, s.time_ns);
  }
  const double step = events > 1 ? double(t_last - t_first) / double(events - 1) : 0.0;

  FILE* out = std::fopen((dst / lumen::clock::kDataFile).c_str(), "wb");
  if (!out) {
    std::perror("profile");
    return 1;
  }
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<size_t> pick(0, samples.size() - 1);
  std::vector<unsigned char> block(LUMEN_BLOCK_BYTES);
  // All blocks carry the first sample's thread id; the source program is
  // single-threaded (the records keep their own thread ids).
  for (uint64_t done = 0; done < events;) {
    std::memset(block.data(), 0, block.size());
    lumen_block_header h{LUMEN_BLOCK_MAGIC, LUMEN_FORMAT_MAJOR, LUMEN_FORMAT_MINOR, LUMEN_BLOCK_BYTES,
                         samples[0].thread_id};
    std::memcpy(block.data(), &h, sizeof h);
    size_t at = sizeof h;
    for (; done < events; ++done) {
      Sample s = samples[pick(rng)];
      const uint32_t span = lumen_record_span(sizeof s);
      if (at + span > block.size()) break;
      s.time_ns = t_first + uint64_t(step * double(done));
      uint32_t word = lumen_record_word(lumen::clock::kSplitSampleRecord, sizeof s);
      std::memcpy(block.data() + at, &word, 4);
      std::memcpy(block.data() + at + 4, &s, sizeof s);
      at += span;
    }
    if (std::fwrite(block.data(), 1, block.size(), out) != block.size()) {
      std::perror("profile");
      return 1;
    }
  }
  std::fclose(out);
  std::printf("%s: %llu clock events from %zu recorded ones\n", dst.c_str(), (unsigned long long)events,
              samples.size());
  return 0;
}
