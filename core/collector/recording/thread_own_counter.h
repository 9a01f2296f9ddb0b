// Counters that only their own thread and its signal handlers change. A
// handler runs between two instructions of the code it interrupts, never
// inside one: an add that is one instruction is atomic for it without the
// lock prefix, which orders the add for other CPUs and costs some 20 cycles
// on every record written.
#pragma once

#include <atomic>
#include <cstdint>

namespace lumen::collector {

// [signal-safe] Adds `value` and returns what the counter held before.
inline uint32_t own_thread_fetch_add(std::atomic<uint32_t>& counter, uint32_t value) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "the counter is one word");
#if defined(__x86_64__)
  asm volatile("xaddl %0, %1" : "+r"(value), "+m"(*reinterpret_cast<uint32_t*>(&counter)) : : "memory");
  return value;
#else
  return counter.fetch_add(value, std::memory_order_relaxed);
#endif
}

}  // namespace lumen::collector
