// Per-thread batches of encoded heap events (the encoding is in
// heap_record.h).
//
// Each thread appends to a slot of its own, claimed on its first event from
// a pool in raw mmap memory (no malloc, no locks). A slot's `busy` word
// makes its owner and stop() exclusive: the owner holds it only while it
// appends (a few dozen instructions, or one write_record when the batch is
// full), and stop(), which runs while other threads may still be finishing
// an event, waits for it before writing the slot's last batch.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstdint>

#include "../heap_record.h"

namespace lumen::heap {

// Not signal-safe: from the plugin's start().
void batches_start(const lumen_runtime* runtime, lumen_stream stream);

// [signal-safe] Appends an event to the calling thread's batch. Call only
// under a TraceGuard, so that nothing on this thread appends meanwhile.
void batch_append(const HeapEvent& event) noexcept;

// Writes the calling thread's batch and gives its slot back.
void batches_thread_end() noexcept;

// Writes every thread's batch; later appends are dropped and counted.
void batches_stop() noexcept;

// In a forked child: the batches it inherited are the parent's; forget them.
void batches_forget_after_fork() noexcept;

}  // namespace lumen::heap
