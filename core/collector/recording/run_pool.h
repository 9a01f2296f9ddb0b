// Runs of data-file blocks prepared ahead by a thread of the runtime's own
// (lumen-runs), for the threads that write much: a busy thread takes its
// next megabyte already mapped with every page made writable and touched,
// and hands its used run back to be unmapped. So the program's threads pay
// neither the page allocation (a system call of some 30 µs a block), nor
// each page's first touch (a trap to the hypervisor on a virtual machine
// with shadow page tables: some 7 µs a page here), nor the TLB shootdown of
// an unmapping. A stream is prepared for once one of its threads has asked
// for a full run (kMaxRunBlocks); until a run is ready, or without the
// thread, or under a size limit (collect -L), a writer maps its own as
// before. A new thread's first block of a stream is prepared the same way,
// once the stream has had a thread start writing to it.
#pragma once

#include <cstdint>

namespace lumen::collector {

struct PreparedRun {
  char* base;
  uint64_t offset;  // where it starts in its stream's file
};

// Not signal-safe. Starts the preparing thread (collection start, and in a
// collected forked child after run_pool_forget_after_fork), which first
// runs `thread_begins` (the runtime marks it as the collector's own).
void run_pool_start(void (*thread_begins)());

// Not signal-safe. Stops the thread, gives back the file space of prepared
// runs never taken, and unmaps every run handed back.
void run_pool_stop();

// In a forked child (one thread): the parent's prepared and handed-back runs
// are mapped here too; unmaps the child's copies and forgets the parent's
// thread, leaving the parent's files alone.
void run_pool_forget_after_fork();

// [signal-safe] A prepared run of kMaxRunBlocks blocks of `stream` that
// starts past `after_offset` (the caller's current run: a thread's blocks
// stay in file order, the order its records are read in), if one is ready;
// either way the stream is prepared for from now on.
bool take_prepared_run(int stream, uint64_t after_offset, PreparedRun& run);

// [signal-safe] A thread's first block of `stream`, mapped and made
// writable ahead, if one is ready; either way first blocks of the stream
// are prepared from now on. A block's place in the file does not matter:
// the thread has no earlier one there.
bool take_first_block(int stream, PreparedRun& run);

// Not signal-safe. How many threads are about to begin at once (collect -P
// begins every thread of the process together): that many more first
// blocks (up to a bound) are prepared, once, for each stream that has had
// one taken so far (those a thread's begin writes to, once one thread has
// begun). Those left over are taken by later threads, or given back at
// the stop.
void run_pool_expect_thread_begins(uint32_t count);

// [signal-safe] What the pool did so far (the experiment log says it).
struct RunPoolCounts {
  uint64_t prepared;       // runs mapped and made writable ahead
  uint64_t taken;          // of those, taken by a writing thread
  uint64_t passed_over;    // prepared too early for the thread that found them, given back
  uint64_t handed_back;    // used runs unmapped by the pool's thread
  uint64_t first_prepared;  // threads' first blocks mapped ahead
  uint64_t first_taken;     // of those, taken by a new thread
};
RunPoolCounts run_pool_counts();

// [signal-safe] Has the preparing thread unmap `bytes` at `base`; false when
// it cannot (not running, or its queue is full): the caller unmaps.
bool hand_back_run(char* base, uint64_t bytes);

}  // namespace lumen::collector
