// Addresses as the views print them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace lumen::analysis {

// "0x" and lowercase hex digits, no padding: "0x4011a6".
inline std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace lumen::analysis
