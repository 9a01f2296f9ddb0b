// Messages by size, as -mpi_messages and the analyzer's MPI Chart show
// them: classes growing sixteen-fold from 1 byte (0 bytes a class of its
// own), each [lower, next lower) bytes.
#pragma once

#include <cstdint>
#include <string>

namespace lumen::mpi {

inline constexpr int kSizeClasses = 17;  // 0 B, then 16^(k-1) .. 16^k - 1 B for k = 1..15, then 2^60 B and more

// The class of a message of `bytes`.
inline int size_class(uint64_t bytes) {
  int k = 0;
  for (uint64_t lower = 1; k + 1 < kSizeClasses && bytes >= lower; lower <<= 4) ++k;
  return k;
}

// The first size of class `k`.
inline uint64_t class_lower(int k) { return k == 0 ? 0 : uint64_t{1} << (4 * (k - 1)); }

// "0 B", "1 B - 16 B", "16 B - 256 B", ..., "4 KiB - 64 KiB": from its
// first size to the next class's (not included).
inline std::string size_class_name(int k) {
  const auto text = [](uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int unit = 0;
    while (bytes >= 1024 && bytes % 1024 == 0 && unit < 6) {
      bytes /= 1024;
      ++unit;
    }
    return std::to_string(bytes) + " " + units[unit];
  };
  if (k == 0) return "0 B";
  if (k + 1 == kSizeClasses) return text(class_lower(k)) + " and more";
  return text(class_lower(k)) + " - " + text(class_lower(k + 1));
}

}  // namespace lumen::mpi
