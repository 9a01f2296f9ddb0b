// What the generated MPI wrappers share with the plugin's lifecycle: whether
// a call is recorded, the per-thread nesting that keeps calls MPI makes
// inside MPI out of the trace, the trace buffer budget (VT_BUFFER_SIZE x
// VT_MAX_FLUSHES) and the writing of records. Nothing here needs mpi.h, so
// it is the same for every MPI implementation.
#pragma once

#include <lumen/collector_support.h>

#include <cstdint>

#include "../mpi_packed_call.h"

namespace lumen::mpi {

// A call being traced: its record, filled by the wrapper and its hooks, and
// the messages it started or completed, written with it as one packed
// record. More than kMaxPackedMessages of them spill: each is then written
// as a message record at once, stamped with the time of the first spill,
// and the call in the full layout.
struct CallState {
  MpiCall call{};
  MpiMessage messages[kMaxPackedMessages];  // [0, message_count) filled; no initializer: not cleared per call
  int message_count = 0;
  bool spilled = false;
  uint64_t spilled_ns = 0;  // when the messages began to spill
  bool written = false;
  // Entered while recording (not paused by -y, inside -t's window): its
  // records are written whenever it ends; one entered otherwise, never.
  bool recorded = false;
};

// Opens a traced call on this thread: true when it is to be recorded (the
// plugin runs, this process is collected, the trace is not full, and no MPI
// call is already being traced on this thread). The caller must then call
// close_call() exactly once. [Not signal-safe: MPI is not either.]
bool open_call(CallState& state, Function function);
// Completes the record (exit time, stack) and writes it when `guard` holds,
// unless already written (MPI_Abort writes before it forwards); then closes
// the call.
void close_call(CallState& state, const TraceGuard& guard);
// Writes the record now, with the exit time equal to the entry time: for a
// call that does not return (MPI_Abort). Only under a TraceGuard (a hook).
void write_call_now(CallState& state);

// The runtime, for the hooks' bookkeeping under a TraceGuard (the request
// table allocates); NULL before start().
const lumen_runtime* runtime();

// One point-to-point message the current call started or completed.
void add_message(CallState& state, uint16_t direction, uint64_t bytes, int32_t peer, int32_t tag,
                 uint64_t communicator);

// MPI_Init returned: this process's rank, and what MPI says of itself.
void set_process(int32_t rank, int32_t world_size, uint32_t thread_level, const char* library, const char* host);
int32_t world_rank();

uint64_t now_ns();

// Whether each rank's clock is measured against rank 0's (the clock_sync
// option), and the record of one measurement (written past the trace
// budget: the times before it need it).
bool clock_sync_on();
void write_clock(const MpiClock& clock);

// Whether this process has an MPI library, and whether it is the one this
// variant of the collector half was built for. Defined with the wrappers,
// where the library's symbols are known.
enum class MpiLibrary { kNone, kOwn, kOther };
MpiLibrary mpi_library();

}  // namespace lumen::mpi
