// The experiment's deduplicated call-stack table, inside the target.
//
// A lock-free open-addressing hash set in memory from raw mmap (no malloc):
// interning a stack compares it with the stacks already seen and, the first
// time, appends a stack record to the "stacks" data file. Events then carry
// the stack id only. Each thread keeps a copy of the latest stack it
// interned, so a call repeated from one place costs a comparison, not a
// hash and a probe of the shared table.
#pragma once

#include <cstdint>

namespace lumen::collector {

// Not signal-safe: maps the table's memory. Returns false when it cannot.
bool stack_table_init(int stacks_stream);

// Not signal-safe. Empties the table (a forked child starts an experiment
// of its own, whose stack file does not hold the parent's stacks).
void stack_table_reset();

// [signal-safe] Changes whenever the table is emptied (init, reset): an id
// kept from before names nothing in the table of now.
uint64_t stack_table_generation();

// [signal-safe] Returns the id of the stack `pcs[0..depth)` (leaf first),
// adding it on first sight; LUMEN_NO_STACK when the table is full.
uint64_t stack_table_intern(const uint64_t* pcs, uint32_t depth, uint32_t flags);

}  // namespace lumen::collector
