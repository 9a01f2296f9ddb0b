// Where a shared object running in another process defines an exported
// function: the object found in the process's mappings, the symbol's value
// read from the same file (through /proc/PID/root, so a process in another
// mount namespace is read as it sees its files).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lumen::attach {

struct MappedObject {
  std::string path;    // as the process maps it
  uint64_t base = 0;   // load bias: the address of the file's virtual address 0
};

// The first mapped object whose file name starts with `name_prefix`
// ("libc.so"); nullopt when the process maps none.
std::optional<MappedObject> mapped_object(pid_t pid, const std::string& name_prefix);

// The file names (no directory) of every object the process maps.
std::vector<std::string> mapped_object_names(pid_t pid);

// The object mapped from `path` (its exact path); nullopt when none is.
std::optional<MappedObject> mapped_object_at(pid_t pid, const std::string& path);

// The value (a file virtual address) of the default version of the
// exported function `name` in the object's dynamic symbol table.
std::optional<uint64_t> exported_function(pid_t pid, const MappedObject& object, const std::string& name);

}  // namespace lumen::attach
