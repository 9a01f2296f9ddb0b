// The MPI plugin's records, shared by its two halves: one declaration of
// each layout, checked by static_assert. No MPI header is needed here: MPI
// handles are stored as their bits (a pointer in Open MPI, an int in MPICH).
#pragma once

#include <cstddef>
#include <cstdint>

namespace lumen::mpi {

inline constexpr const char* kDataFile = "mpitrace";

// Record kinds in "mpitrace".
inline constexpr uint16_t kSettingsRecord = 1;    // MpiSettings, once per process at start
inline constexpr uint16_t kProcessRecord = 2;     // MpiProcess, when MPI_Init returns; then the name strings
inline constexpr uint16_t kCallRecord = 3;        // MpiCall, a call the compact layout cannot hold
inline constexpr uint16_t kMessageRecord = 4;     // MpiMessage, a message such a call started or completed
inline constexpr uint16_t kIncompleteRecord = 5;  // MpiIncomplete, when VT_MAX_FLUSHES stopped tracing
inline constexpr uint16_t kClockRecord = 8;       // MpiClock, at MPI_Init and at MPI_Finalize
// A call and its messages in one record (mpi_packed_call.h): what the
// collector writes for nearly every call.
inline constexpr uint16_t kCompactCallRecord = 7;

inline bool is_record_kind(uint16_t kind) {
  return (kind >= kSettingsRecord && kind <= kIncompleteRecord) || kind == kCompactCallRecord || kind == kClockRecord;
}

// The traced functions, numbered by their position in mpi_functions.def.
enum class Function : uint16_t {
  kNone = 0,
#define LUMEN_MPI_CALL(name, kind, params, args) k##name,
#include "mpi_functions.def"
#undef LUMEN_MPI_CALL
  kEnd
};

inline const char* function_name(uint16_t function) {
  static constexpr const char* kNames[] = {
      "<unknown MPI function>",
#define LUMEN_MPI_CALL(name, kind, params, args) "MPI_" #name,
#include "mpi_functions.def"
#undef LUMEN_MPI_CALL
  };
  return function < sizeof kNames / sizeof kNames[0] ? kNames[function] : kNames[0];
}

// VampirTrace's settings as the process applied them, written when a
// process with an MPI library starts tracing.
struct MpiSettings {
  uint64_t buffer_bytes;  // VT_BUFFER_SIZE
  uint32_t max_flushes;   // VT_MAX_FLUSHES: 0 = unlimited
  uint32_t stacks;        // VT_STACKS: 0 = no call stacks
  uint32_t verbose;       // VT_VERBOSE
  uint32_t reserved;
  // Appended (a record of kSettingsBytesBefore bytes has none): the rank
  // the launcher gave the process (OMPI_COMM_WORLD_RANK, PMI_RANK,
  // PMIX_RANK), -1 when none; what names a process no MPI call of which
  // was recorded.
  int32_t launcher_rank;
  uint32_t reserved2;
};
static_assert(sizeof(MpiSettings) == 32, "record layout");
inline constexpr uint16_t kSettingsBytesBefore = 24;

// The process as MPI knows it, written when MPI_Init returns. Followed by
// `library_bytes` of the MPI library's version string and `host_bytes` of
// the processor name (no terminating NULs).
struct MpiProcess {
  uint64_t time_ns;
  int32_t rank;        // in MPI_COMM_WORLD
  int32_t world_size;
  uint16_t library_bytes;
  uint16_t host_bytes;
  uint32_t thread_level;  // provided by MPI_Init_thread, 0 for MPI_Init
};
static_assert(sizeof(MpiProcess) == 24, "record layout");

// One traced call. Sends are point-to-point messages the call started,
// receives those it completed; a call with neither counts as "other".
struct MpiCall {
  uint64_t enter_ns;  // CLOCK_MONOTONIC
  uint64_t exit_ns;
  uint64_t stack_id;  // LUMEN_NO_STACK with VT_STACKS=0
  uint64_t communicator;  // the handle's bits, 0 when the call has none
  uint64_t bytes_sent;    // count x type size as given in the call
  uint64_t bytes_received;  // as the completed receives' statuses report
  uint32_t thread_id;
  int32_t rank;   // this process's rank in MPI_COMM_WORLD, -1 before MPI_Init
  int32_t peer;   // world rank of the one peer, -1 when none or several
  int32_t tag;    // of the one message, -1 when none or several
  uint32_t sends;
  uint32_t receives;
  uint16_t function;  // Function
  uint16_t reserved;
  int32_t result;     // what the call returned
};
static_assert(sizeof(MpiCall) == 80, "record layout");

inline constexpr uint16_t kMessageSent = 1;
inline constexpr uint16_t kMessageReceived = 2;

// One point-to-point message: started by a send, or completed by a receive.
struct MpiMessage {
  uint64_t time_ns;  // when the call that started or completed it returned
  uint64_t bytes;
  uint64_t communicator;
  int32_t rank;  // this process (the sender of a sent message, the receiver of a received one)
  int32_t peer;  // world rank of the other side
  int32_t tag;
  uint16_t direction;  // kMessageSent, kMessageReceived
  uint16_t function;   // the call that started or completed it
};
static_assert(sizeof(MpiMessage) == 40, "record layout");

// Tracing stopped because VT_MAX_FLUSHES buffers were filled: what follows
// in the program is missing from the trace.
struct MpiIncomplete {
  uint64_t time_ns;
  uint64_t flushes;
  uint64_t recorded_bytes;
};
static_assert(sizeof(MpiIncomplete) == 24, "record layout");

inline constexpr uint16_t kClockAtInit = 1;
inline constexpr uint16_t kClockAtFinalize = 2;

// This process's clock measured against the job's reference (rank 0's):
// the reference read `offset_ns` more than this clock at `local_ns` (this
// clock's time), give or take `error_ns`, half the quickest of the
// round trips measured. A process on rank 0's clock (its host's, as
// boot, time namespace and host name tell) has offset and error 0.
struct MpiClock {
  uint64_t local_ns;
  int64_t offset_ns;
  uint64_t error_ns;
  uint16_t phase;       // kClockAtInit, kClockAtFinalize
  uint16_t same_clock;  // 1: rank 0's clock itself, nothing measured
  int32_t reference_rank;
};
static_assert(sizeof(MpiClock) == 32, "record layout");

}  // namespace lumen::mpi
