// Compressing full heap batches off the traced threads.
//
// A traced thread whose batch is full offers it here instead of writing it:
// the batch is copied into a bounded queue (raw mmap memory, a lock-free
// ring: no malloc, no lock, never a wait) and a thread of the plugin's own
// gathers queued batches, rewrites them into sections (heap_paired.h),
// compresses them together with zstd (its workspace is mapped once, so zstd
// never calls the target's allocator either) and writes one
// kPairedCompactRecord (heap_record.h). Compression thus never runs
// in a signal handler nor under any lock the target may hold. When the queue
// is full or the thread is not running, the offer is refused and the caller
// writes its batch as it is: nothing waits and nothing is lost.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstdint>

namespace lumen::heap {

// Not signal-safe: from the plugin's start(). `level` is zstd's. Returns
// false when the thread cannot run (offers are then refused).
bool compressor_start(const lumen_runtime* runtime, lumen_stream stream, int level);

// [signal-safe] Takes a copy of a kPairedBatchRecord payload for compression;
// false when it cannot now (write it yourself).
bool compressor_offer(const uint8_t* batch, uint16_t bytes) noexcept;

// Not signal-safe: compresses and writes everything offered, then ends the
// thread. Offers after this are refused.
void compressor_stop() noexcept;

// In a forked child: the parent's queue is the parent's; start a thread of
// the child's own on an empty queue.
void compressor_after_fork() noexcept;
// In a forked child that is not collected: nothing drains the queue there.
void compressor_forget_after_fork() noexcept;

}  // namespace lumen::heap
