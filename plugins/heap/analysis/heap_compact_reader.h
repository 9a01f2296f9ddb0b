// Reading a kCompactRecord's decompressed frame (the layout is in
// ../heap_compact.h) into the ops its plain batches would yield.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "heap_timeline.h"

namespace lumen::heap {

// A compact frame's sections: `count` varint lengths, then the sections
// (named `names` in an error); false, with the reason, when they do not
// fit `bytes` exactly.
bool split_sections(const uint8_t* data, size_t bytes, int count, const char* const* names, const uint8_t** begins,
                    const uint8_t** ends, std::string& error);

// The frame's `bytes` at `data`, holding `batch_count` batches: each op to
// `reader`, batch_end() after each batch. Returns false, with the reason in
// `error` ("its tags section ..."), at anything that does not fit (the data is untrusted).
bool decode_compact(const uint8_t* data, size_t bytes, uint32_t batch_count, HeapRecordReader& reader,
                    std::string& error);

}  // namespace lumen::heap
