// A problem with an experiment's contents, naming the file and, where it
// applies, the byte offset: what er_print prints instead of crashing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace lumen::analysis {

struct FormatError : std::runtime_error {
  FormatError(const std::string& file, uint64_t offset, const std::string& what)
      : std::runtime_error(file + " at offset " + std::to_string(offset) + ": " + what) {}
  explicit FormatError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace lumen::analysis
