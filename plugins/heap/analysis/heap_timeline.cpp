#include "heap_timeline.h"

#include "../heap_compact.h"
#include "heap_compact_reader.h"
#include "heap_paired_reader.h"

#include <zstd.h>

#include <cstring>
#include <memory>
#include <vector>

namespace lumen::heap {

namespace {

bool decode_batch(const uint8_t* data, uint16_t bytes, HeapRecordReader& reader, std::string& error) {
  if (bytes < sizeof(HeapBatch)) {
    error = "heap batch record of " + std::to_string(bytes) + " bytes; its header alone needs " +
            std::to_string(sizeof(HeapBatch));
    return false;
  }
  HeapBatch batch;
  std::memcpy(&batch, data, sizeof batch);
  const uint8_t* in = data + sizeof batch;
  const uint8_t* const end = data + bytes;
  uint64_t time = batch.base_time_ns;
  uint64_t address = 0;
  for (uint32_t n = 0; n < batch.event_count; ++n) {
    if (in == nullptr || in >= end) {
      error = "heap batch of " + std::to_string(batch.event_count) + " events ends inside event " + std::to_string(n);
      return false;
    }
    const uint8_t tag = *in++;
    const auto type = static_cast<EventType>((tag >> 4) & 0x7);
    const auto allocator = static_cast<Allocator>(tag & 0xf);
    if (static_cast<int>(allocator) >= kAllocatorCount) {
      error = "heap event " + std::to_string(n) + " names allocator " + std::to_string(tag & 0xf);
      return false;
    }
    const bool mapping = is_mapping(allocator);
    uint64_t size = 0, stack = 0, after = 0;
    switch (type) {
      case EventType::kAlloc:
        in = get_delta(in, end, time, time);
        if (in) in = get_delta(in, end, address, address);
        if (in) in = get_varint(in, end, size);
        if (in) in = get_varint(in, end, stack);
        if (in) reader.op({time, address, size, stack - 1, batch.thread_id, true, mapping, allocator});
        break;
      case EventType::kFree:
      case EventType::kUnmap:
        in = get_delta(in, end, time, time);
        if (in) in = get_delta(in, end, address, address);
        if (in) reader.op({time, address, 0, 0, batch.thread_id, false, type == EventType::kUnmap, allocator});
        break;
      case EventType::kRealloc: {
        uint64_t free_time = 0;
        in = get_delta(in, end, time, free_time);
        if (in) in = get_varint(in, end, after);
        if (in && (tag & kTagFreedOld) != 0) {
          in = get_delta(in, end, address, address);
          if (in) reader.op({free_time, address, 0, 0, batch.thread_id, false, mapping, allocator});
        }
        if (in) in = get_delta(in, end, address, address);
        if (in) in = get_varint(in, end, size);
        if (in) in = get_varint(in, end, stack);
        time = free_time + after;
        if (in) reader.op({time, address, size, stack - 1, batch.thread_id, true, mapping, allocator});
        break;
      }
      default:
        error = "heap event " + std::to_string(n) + " has the unknown type " + std::to_string((tag >> 4) & 0x7);
        return false;
    }
  }
  if (in == nullptr) {
    error = "heap batch of " + std::to_string(batch.event_count) + " events ends inside its last event";
    return false;
  }
  reader.batch_end();
  return true;
}

// Decompresses the frame and decodes each batch it holds. The sizes it
// claims are checked before they are used: the data is untrusted.
enum class Form { kPlain, kCompact, kPaired };
bool decode_compressed(const uint8_t* data, uint16_t bytes, Form form, HeapRecordReader& reader,
                       std::string& error) {
  const bool compact = form != Form::kPlain;
  HeapCompressed header;
  const size_t most = compact ? kMaxCompactBytes : kMaxGatheredBytes;
  if (bytes < sizeof header) {
    error = "compressed heap record of " + std::to_string(bytes) + " bytes; its header alone needs " +
            std::to_string(sizeof header);
    return false;
  }
  std::memcpy(&header, data, sizeof header);
  if (header.raw_bytes > most) {
    error = "compressed heap record claims " + std::to_string(header.raw_bytes) + " bytes of batches; at most " +
            std::to_string(most) + " are written";
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
  if (form == Form::kPaired) {
    if (decode_paired_compact(raw.data(), got, header.batch_count, reader, error)) return true;
    error = "compressed heap record (paired form): " + error;
    return false;
  }
  if (compact) {
    if (decode_compact(raw.data(), got, header.batch_count, reader, error)) return true;
    error = "compressed heap record (compact form): " + error;
    return false;
  }
  size_t at = 0;
  for (uint32_t n = 0; n < header.batch_count; ++n) {
    uint16_t batch_bytes = 0;
    if (at + 2 > got || (std::memcpy(&batch_bytes, raw.data() + at, 2), at + 2 + batch_bytes > got)) {
      error = "compressed heap record of " + std::to_string(header.batch_count) + " batches ends inside batch " +
              std::to_string(n);
      return false;
    }
    if (!decode_batch(raw.data() + at + 2, batch_bytes, reader, error)) return false;
    at += 2 + batch_bytes;
  }
  if (at != got) {
    error = "compressed heap record has " + std::to_string(got - at) + " bytes after its " +
            std::to_string(header.batch_count) + " batches";
    return false;
  }
  return true;
}

}  // namespace

bool decode_heap_record(uint16_t kind, const void* payload, uint16_t bytes, HeapRecordReader& reader,
                        std::string& error) {
  if (kind == kStartRecord) {
    if (bytes < sizeof(HeapStart)) {
      error = "heap start record of " + std::to_string(bytes) + " bytes; it needs " + std::to_string(sizeof(HeapStart));
      return false;
    }
    HeapStart start;
    std::memcpy(&start, payload, sizeof start);
    reader.start(start);
    return true;
  }
  if (kind == kBatchRecord) return decode_batch(static_cast<const uint8_t*>(payload), bytes, reader, error);
  if (kind == kCompressedRecord || kind == kCompactRecord)
    return decode_compressed(static_cast<const uint8_t*>(payload), bytes,
                             kind == kCompactRecord ? Form::kCompact : Form::kPlain, reader, error);
  if (kind == kPairedBatchRecord)
    return decode_paired_batch(static_cast<const uint8_t*>(payload), bytes, reader, error);
  if (kind == kPairedCompactRecord)
    return decode_compressed(static_cast<const uint8_t*>(payload), bytes, Form::kPaired, reader, error);
  return true;
}

void HeapTimeline::finish() {
  std::stable_sort(ops_.begin(), ops_.end(), [](const HeapOp& a, const HeapOp& b) { return a.time_ns < b.time_ns; });
}

}  // namespace lumen::heap
