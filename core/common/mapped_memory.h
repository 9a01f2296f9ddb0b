// Whether every page of [start, start + bytes) of this process is mapped
// (mincore fails with ENOMEM on a hole), so reading them cannot fault: for
// images whose extent comes from their own headers (the vDSO's). Not
// signal-safe (it allocates).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lumen::metadata {

inline bool memory_is_mapped(uintptr_t start, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t first = start & ~(page - 1);
  const size_t span = (start + bytes - first + page - 1) & ~(page - 1);
  std::vector<unsigned char> residency(span / page);
  return mincore(reinterpret_cast<void*>(first), span, residency.data()) == 0;
}

}  // namespace lumen::metadata
