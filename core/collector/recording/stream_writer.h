// Data files of the experiment, written through per-thread memory-mapped
// blocks (see lumen/record_format.h for the layout a reader sees).
#pragma once

#include <cstdint>
#include <string>

namespace lumen::collector {

// Not signal-safe. Opens or creates `name` in the experiment directory and
// returns its stream number, or -1 (the reason goes to the experiment log).
int open_stream(const char* directory, const char* name);

// [signal-safe] Appends one record to the calling thread's block of `stream`.
// Never waits: returns false (and counts a drop with its cause) when the
// record cannot be written (disk full, size limit, thread finished). A
// handler interrupting a write on the same stream while it changes blocks
// writes its record in a block of its own.
bool write_record(int stream, uint16_t kind, const void* payload, uint16_t payload_bytes);

// Not signal-safe. Unmaps the calling thread's blocks; later writes drop.
void finish_thread_streams();

// In a forked child (one thread): leaves the parent's blocks to the parent
// (unmapping them here does not touch its files), and points every open
// stream at a file of the same name in `directory`, keeping stream numbers.
// Returns false when a file cannot be created.
bool redirect_streams_after_fork(const char* directory);

// In a forked child that is not collected: never write to the parent's files.
void abandon_streams_after_fork();

// Not signal-safe. From now on the data files together stop growing at
// `bytes` (0: no limit): a block that would pass it is not mapped, and the
// first refusal calls `on_reached` (from whatever thread, maybe in a signal
// handler, so it must be signal-safe).
void set_size_limit(uint64_t bytes, void (*on_reached)());

// [signal-safe] Whether the size limit has refused a block.
bool size_limit_reached();

// Not signal-safe. Counts `bytes` the runtime wrote outside the data files
// (the vDSO's image) against the size limit.
void charge_size_limit(uint64_t bytes);

// For the run pool (run_pool.h). A busy thread's runs are this many blocks
// long (2 MiB, a huge page), the ones the pool prepares.
inline constexpr uint32_t kMaxRunBlocks = 32;
// madvise's MADV_POPULATE_WRITE (Linux 5.14; older kernels refuse it).
inline constexpr int kPopulateWrite = 23;
// [signal-safe] Reserves, allocates and maps a run of `blocks` of
// `stream`'s file (a full one, kMaxRunBlocks, 2 MiB-aligned and advised as
// huge pages); nullptr when it cannot or under a size limit (the file's
// offset in `offset`).
char* map_stream_run(int stream, uint32_t blocks, uint64_t& offset);
// [signal-safe] Gives an untouched run's file space back (a hole again) and
// unmaps it.
void discard_stream_run(int stream, char* base, uint64_t offset, uint32_t blocks);

// Why a record was not written, counted apart so the log can say.
enum class DropCause : int {
  kThreadFinished,  // its thread's collection had ended (thread_end ran)
  kBlockBusy,       // a signal handler wrote while its thread was changing blocks
  kNoBlock,         // no block could be had: the size limit, or mapping the file failed
  kUnwritable,      // a record the writer refuses (no stream, no kind, too large)
  kAfterFork,       // in a forked child that is not collected
  kPlugin,          // a plugin could not record (count_drop: a thread's timer or slot)
  kCount
};

// [signal-safe] Records dropped so far, by any thread.
uint64_t dropped_records();
// [signal-safe] Those of them dropped for `cause`.
uint64_t dropped_records(DropCause cause);
// The log's name of a cause ("thread_finished").
const char* drop_cause_name(DropCause cause);

// Not signal-safe. The first data file the writer failed to extend or map,
// and the error (a full disk: ENOSPC); false when none failed.
bool first_write_failure(std::string* file, int* error);
// [signal-safe]
void count_dropped_record(DropCause cause);
// [signal-safe] For plugins (lumen_recording.count_drop).
void count_plugin_dropped_record();

}  // namespace lumen::collector
