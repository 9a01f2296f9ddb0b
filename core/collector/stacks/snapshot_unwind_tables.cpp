#include "stacks/snapshot_unwind_tables.h"

#include <link.h>

#include "stacks/object_snapshot.h"

namespace lumen::collector {

namespace {

// The object holding `pc`: its executable segment and its .eh_frame_hdr.
struct ObjectQuery {
  uint64_t pc;
  uint64_t start = 0, end = 0, eh_frame_hdr = 0;
};

int find_object(dl_phdr_info* info, size_t, void* data) {
  auto* query = static_cast<ObjectQuery*>(data);
  uint64_t start = 0, end = 0, hdr = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_GNU_EH_FRAME) hdr = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const uint64_t s = info->dlpi_addr + ph.p_vaddr;
    if (query->pc >= s && query->pc < s + ph.p_memsz) start = s, end = s + ph.p_memsz;
  }
  if (end == 0) return 0;
  *query = {query->pc, start, end, hdr};
  return 1;
}

// .eh_frame_hdr as every linker writes it: version 1, the frame pointer
// pc-relative, the count a 4-byte word, the table data-relative 4-byte pairs.
constexpr unsigned char kTableEncoding = 0x3b;  // DW_EH_PE_datarel | DW_EH_PE_sdata4
constexpr unsigned char kCountEncoding = 0x03;  // DW_EH_PE_udata4

}  // namespace

bool snapshot_unwind_table(uint64_t ip, unw_dyn_info_t* table, ReadBytes read, void* context) {
  ObjectQuery query{ip};
  if (object_snapshot_iterate(find_object, &query) == 0 || query.eh_frame_hdr == 0) return false;
  unsigned char header[4];
  uint32_t fde_count = 0;
  if (!read(context, query.eh_frame_hdr, header, sizeof header) || header[0] != 1 || header[3] != kTableEncoding ||
      header[2] != kCountEncoding || !read(context, query.eh_frame_hdr + 8, &fde_count, sizeof fde_count))
    return false;
  *table = unw_dyn_info_t{};
  table->format = UNW_INFO_FORMAT_REMOTE_TABLE;
  table->start_ip = query.start;
  table->end_ip = query.end;
  table->u.rti.segbase = query.eh_frame_hdr;
  table->u.rti.table_data = query.eh_frame_hdr + 12;
  table->u.rti.table_len = fde_count * 8 / sizeof(unw_word_t);
  return true;
}

bool snapshot_code_segment(uint64_t pc, uint64_t* start, uint64_t* end) {
  ObjectQuery query{pc};
  if (object_snapshot_iterate(find_object, &query) == 0) return false;
  *start = query.start, *end = query.end;
  return true;
}

}  // namespace lumen::collector
