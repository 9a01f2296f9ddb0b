// A view host (lumen_view_host) over one input's records, as er_print's
// plugin views see them: the records in file order (for_each_record) or
// in parts (for_each_record_in_parts), each payload in a buffer of exactly
// its size, and stacks of a few named frames. It reads every string, value
// and frame a view hands back as er_print's renderer reads it.
#pragma once

#include <lumen/analysis_plugin.h>

#include <string>
#include <vector>

#include "decoder_input.h"

namespace lumen::fuzz {

// Runs `view` over `input`'s records split at `part_starts` (record
// indices, ascending, the first 0). Aborts when the view hands back what
// er_print could not render.
void run_checked_view(const lumen_view_def& view, const DecoderInput& input, const std::vector<size_t>& part_starts);

// A payload as a reader hands it to a plugin: in a heap buffer of exactly
// its size (reading past it is a sanitizer report), at an address only
// 4-byte aligned, as records lie in a block.
class PayloadCopy {
 public:
  explicit PayloadCopy(const InputRecord& record);
  ~PayloadCopy();
  PayloadCopy(const PayloadCopy&) = delete;
  PayloadCopy& operator=(const PayloadCopy&) = delete;
  const void* data() const { return buffer_ + 4; }

 private:
  unsigned char* buffer_;
};

}  // namespace lumen::fuzz
