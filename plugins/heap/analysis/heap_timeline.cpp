#include "heap_timeline.h"

#include "../heap_paired.h"
#include "heap_paired_reader.h"

#include <lumen/analysis_plugin.h>
#include <zstd.h>

#include <cstring>
#include <memory>
#include <vector>

namespace lumen::heap {

namespace {

// Decompresses a kPairedCompactRecord's frame and decodes the batches it
// holds. The sizes it claims are checked before they are used: the data
// is untrusted.
bool decode_compressed(const uint8_t* data, uint16_t bytes, HeapRecordReader& reader, std::string& error) {
  HeapCompressed header;
  if (bytes < sizeof header) {
    error = "compressed heap record of " + std::to_string(bytes) + " bytes; its header alone needs " +
            std::to_string(sizeof header);
    return false;
  }
  std::memcpy(&header, data, sizeof header);
  if (header.raw_bytes > kMaxCompactBytes) {
    error = "compressed heap record claims " + std::to_string(header.raw_bytes) + " bytes of batches; at most " +
            std::to_string(kMaxCompactBytes) + " are written";
    return false;
  }
  static thread_local std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
  static thread_local std::vector<uint8_t> raw;
  raw.resize(header.raw_bytes);
  const size_t got = ZSTD_decompressDCtx(context.get(), raw.data(), raw.size(), data + sizeof header,
                                         bytes - sizeof header);
  if (ZSTD_isError(got)) {
    error = std::string("compressed heap record does not decompress (zstd: ") + ZSTD_getErrorName(got) + ")";
    return false;
  }
  if (got != header.raw_bytes) {
    error = "compressed heap record decompresses to " + std::to_string(got) + " bytes; its header says " +
            std::to_string(header.raw_bytes);
    return false;
  }
  if (decode_paired_compact(raw.data(), got, header.batch_count, reader, error)) return true;
  error = "compressed heap record (paired form): " + error;
  return false;
}

}  // namespace

bool decode_heap_record(uint16_t kind, const void* payload, uint16_t bytes, HeapRecordReader& reader,
                        std::string& error) {
  const auto* data = static_cast<const uint8_t*>(payload);
  switch (kind) {
    case kStartRecord: {
      if (bytes < sizeof(HeapStart)) {
        error = "heap start record of " + std::to_string(bytes) + " bytes; it needs " +
                std::to_string(sizeof(HeapStart));
        return false;
      }
      HeapStart start;
      std::memcpy(&start, payload, sizeof start);
      reader.start(start);
      return true;
    }
    case kPairedBatchRecord:
      return decode_paired_batch(data, bytes, reader, error);
    case kPairedCompactRecord:
      return decode_compressed(data, bytes, reader, error);
  }
  char unknown[160];
  lumen_unknown_record_kind("heap", kind, unknown, sizeof unknown);
  error = unknown;
  return false;
}

void HeapTimeline::finish() {
  std::stable_sort(ops_.begin(), ops_.end(), [](const HeapOp& a, const HeapOp& b) { return a.time_ns < b.time_ns; });
}

}  // namespace lumen::heap
