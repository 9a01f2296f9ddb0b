// What the collector API library (libcollectorAPI.so) calls when the
// program runs under collect. Without collect these symbols are absent and
// the API does nothing.
#include "stacks/loadobject_tracker.h"
#include "lifecycle/runtime_state.h"
#include "lifecycle/recording_control.h"
#include "periodic/sample_points.h"
#include "threads/program_thread_state.h"

#include <lumen/plugin_abi.h>
#include <lumen/record_format.h>

using namespace lumen::collector;

LUMEN_EXPORT void lumen_api_sample(const char* name) {
  if (collecting()) record_sample(LUMEN_SAMPLE_API, name);
}
LUMEN_EXPORT void lumen_api_pause() { set_paused(true); }
LUMEN_EXPORT void lumen_api_resume() { set_paused(false); }
LUMEN_EXPORT void lumen_api_terminate() { stop_collection(); }
LUMEN_EXPORT void lumen_api_func_load(const char* name, const void* start, unsigned long size) {
  if (!collecting()) return;
  const RuntimeGuard guard;
  loadobject_tracker_dynamic_code(name, reinterpret_cast<uint64_t>(start), size);
}
LUMEN_EXPORT void lumen_api_func_unload(const void* start) {
  if (!collecting()) return;
  const RuntimeGuard guard;
  loadobject_tracker_dynamic_code(nullptr, reinterpret_cast<uint64_t>(start), 0);
}
