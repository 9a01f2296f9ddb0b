// Where libunwind's generic (remote) interface finds the unwind table of a
// code address of this process: the .eh_frame_hdr of the object holding it,
// from the runtime's snapshot of loaded objects (object_snapshot.h), so
// that no linker lock is taken.
#pragma once

#include <libunwind.h>

#include <cstddef>
#include <cstdint>

namespace lumen::collector {

// Reads `bytes` at `address` of this process into `out`; false when it
// cannot.
using ReadBytes = bool (*)(void* context, uint64_t address, void* out, size_t bytes);

// [signal-safe] Describes in `table` (UNW_INFO_FORMAT_REMOTE_TABLE) the
// binary-search table of the object whose executable segment holds `ip`,
// reading its header with `read`. False when no object of the snapshot
// holds `ip` or its header is not the one every linker writes.
bool snapshot_unwind_table(uint64_t ip, unw_dyn_info_t* table, ReadBytes read, void* context);

// [signal-safe] The executable segment [*start, *end) of the snapshot's
// object holding `pc`; false when none does.
bool snapshot_code_segment(uint64_t pc, uint64_t* start, uint64_t* end);

}  // namespace lumen::collector
