#include "stack_store.h"

#include <lumen/record_format.h>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <algorithm>

#include "data_file_reader.h"
#include "format_error.h"
#include "regular_file.h"

namespace lumen::analysis {

void StackStore::load(const std::filesystem::path& file) {
  if (!std::filesystem::exists(std::filesystem::symlink_status(file))) return;
  // Ids are handed out densely from 0, one per record written, so no valid id
  // reaches the number of records the file could hold; a larger one is
  // corruption, refused before it can size the table.
  struct stat st;
  if (fstat(open_regular_file(file, Symlinks::Refuse).get(), &st) != 0)
    throw FormatError(file.string() + ": cannot stat: " + std::strerror(errno));
  // A sparse file claims any size: count only the bytes it holds.
  const uint64_t held = std::min<uint64_t>(static_cast<uint64_t>(st.st_size), static_cast<uint64_t>(st.st_blocks) * 512);
  const uint64_t id_limit = held / lumen_record_span(sizeof(lumen_stack_record));
  read_data_file(file, [&](const RawRecord& r) {
    if (r.kind != LUMEN_RECORD_STACK) return;  // kinds from newer minor versions
    lumen_stack_record header;
    if (r.payload_bytes < sizeof header) throw FormatError(file.string(), r.offset, "stack record too short");
    std::memcpy(&header, r.payload, sizeof header);
    if (sizeof header + uint64_t{header.depth} * 8 > r.payload_bytes || header.depth > LUMEN_MAX_STACK_DEPTH)
      throw FormatError(file.string(), r.offset, "stack record does not hold its " + std::to_string(header.depth) + " frames");
    if (header.stack_id >= id_limit)
      throw FormatError(file.string(), r.offset,
                        "stack id " + std::to_string(header.stack_id) + " is beyond what the file can hold");
    if (header.stack_id >= stacks_.size()) stacks_.resize(header.stack_id + 1);
    Stack& stack = stacks_[header.stack_id];
    stack.first = pcs_.size();
    stack.depth = header.depth;
    stack.flags = header.flags;
    const char* frames = static_cast<const char*>(r.payload) + sizeof header;
    pcs_.resize(pcs_.size() + header.depth);
    if (header.depth > 0)  // an empty stack may leave pcs_ without storage
      std::memcpy(pcs_.data() + stack.first, frames, header.depth * sizeof(uint64_t));
  });
}

std::span<const uint64_t> StackStore::pcs(uint64_t stack_id) const {
  if (stack_id >= stacks_.size()) return {};
  const Stack& s = stacks_[stack_id];
  return {pcs_.data() + s.first, s.depth};
}

uint32_t StackStore::flags(uint64_t stack_id) const {
  return stack_id < stacks_.size() ? stacks_[stack_id].flags : 0;
}

}  // namespace lumen::analysis
