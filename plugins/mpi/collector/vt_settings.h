// VampirTrace's environment variables, which MPI tracing honours with their
// meaning: VT_STACKS, VT_BUFFER_SIZE, VT_MAX_FLUSHES, VT_VERBOSE. A variable
// that is set overrides the plugin option of the same meaning.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lumen::mpi {

struct VtSettings {
  bool stacks = true;
  uint64_t buffer_bytes = 64ull << 20;
  uint64_t max_flushes = 0;  // 0: flush whenever full, never stop
  int verbose = 1;
  bool clock_sync = true;  // the clock_sync option (no VampirTrace variable: it always synchronised)
};

// "64M", "2G", "512K", "65536": bytes. False for anything else or zero.
bool parse_buffer_size(const char* text, uint64_t* bytes);

// Applies the plugin's canonical options, then the VT_* variables of the
// environment. False with a message naming the option or variable.
bool apply_vt_setting(VtSettings& settings, const char* name, const char* value, char* error, size_t error_size);
bool apply_vt_environment(VtSettings& settings, char* error, size_t error_size);

}  // namespace lumen::mpi
