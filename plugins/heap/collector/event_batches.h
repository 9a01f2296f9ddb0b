// Per-thread batches of paired heap events (the encoding is in
// ../heap_paired.h), and their time marks.
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

#include "../heap_paired.h"

namespace lumen::heap {

// What a free released: an allocation the live table knew (its identity
// and mark), or an address it did not.
struct Freed {
  bool known;
  uint32_t thread_id;
  uint64_t ordinal;
  uint64_t mark_ns;
  uint64_t size;
  uint64_t address;  // when not known
};

// One event as the interposers see it, before encoding.
struct PairedEvent {
  EventType type;       // kAlloc, kFree, kUnmap or kRealloc
  Allocator allocator;  // allocations
  bool frees;           // kFree, kUnmap; kRealloc that released `freed`
  Freed freed;
  uint64_t size;        // allocations
  uint64_t stack_id;
};

// Where an appended allocation is: its identity and the mark it has.
struct Appended {
  uint32_t thread_id;
  uint64_t ordinal;
  uint64_t mark_ns;
};

// Not signal-safe: from the plugin's start().
void batches_start(const lumen_runtime* runtime, lumen_stream stream, uint64_t start_ns);

// [signal-safe] Appends an event to the calling thread's batch, after a
// time mark when one is due: the thread's clock advanced kMarkGranularityNs
// since its last mark, the load-object map changed since, or the event
// frees another thread's allocation marked no earlier (it is marked later).
// Each batch starts with a mark later than the thread's previous one.
// False when the event was dropped (counted). Call only under a
// TraceGuard, so that nothing on this thread appends meanwhile.
bool batch_append(const PairedEvent& event, Appended& appended) noexcept;

// Writes the calling thread's batch and gives its slot back.
void batches_thread_end() noexcept;

// Writes every thread's batch; later appends are dropped and counted.
void batches_stop() noexcept;

// In a forked child: the batches it inherited are the parent's; forget them.
void batches_forget_after_fork() noexcept;

}  // namespace lumen::heap
