// Reading the paired form (../heap_paired.h) into the ops the pairing rule
// replays: an allocation's address is its identity (identity_key: thread
// id and ordinal, above every user-space address), a free's the identity it
// names, or the address it gives when the collector did not know it; each
// op has its thread's time mark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "heap_timeline.h"

namespace lumen::heap {

// A kPairedBatchRecord's payload.
bool decode_paired_batch(const uint8_t* data, size_t bytes, HeapRecordReader& reader, std::string& error);

// A kPairedCompactRecord's decompressed frame holding `batch_count` batches.
bool decode_paired_compact(const uint8_t* data, size_t bytes, uint32_t batch_count, HeapRecordReader& reader,
                           std::string& error);

}  // namespace lumen::heap
