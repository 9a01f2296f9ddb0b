// The plugin's OMPT tool: the preloaded collector half defines
// ompt_start_tool, which an OpenMP 5 runtime (LLVM libomp) looks up in the
// process before it reads OMP_TOOL_LIBRARIES. So that a tool the user
// names there still runs, the plugin starts it itself (the first library
// of the list whose ompt_start_tool answers, as the runtime would) and
// multiplexes: the chained tool registers its callbacks through a
// set_callback of the plugin's, the plugin's callback for an event it also
// uses calls the chained one after its own work, and every other event
// goes to the runtime unchanged. OMP_TOOL=disabled turns both off, as the
// runtime itself does.
#include "ompt_tool.h"

#include <dlfcn.h>
#include <strings.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include <lumen/collector_support.h>

#include "omp_collector.h"

// omp-tools.h leaves the tool's entry point to the tool to declare.
LUMEN_EXPORT ompt_start_tool_result_t* ompt_start_tool(unsigned int omp_version, const char* runtime_version);

namespace lumen::omp {

std::atomic<ompt_callback_t> g_chained_callbacks[kEventLimit];

namespace {

ompt_start_tool_result_t* g_chained = nullptr;
ompt_function_lookup_t g_lookup = nullptr;
ompt_set_callback_t g_set_callback = nullptr;
bool g_plugin_events[kEventLimit];

// The chained tool's ompt_set_callback: events the plugin uses are kept
// for its callbacks to call, the others reach the runtime.
int chained_set_callback(ompt_callbacks_t event, ompt_callback_t callback) {
  if (event > 0 && event < kEventLimit && g_plugin_events[event]) {
    g_chained_callbacks[event].store(callback, std::memory_order_release);
    return ompt_set_always;
  }
  return g_set_callback(event, callback);
}

ompt_interface_fn_t chained_lookup(const char* name) {
  if (std::strcmp(name, "ompt_set_callback") == 0) return reinterpret_cast<ompt_interface_fn_t>(chained_set_callback);
  return g_lookup(name);
}

int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t*) {
  g_lookup = lookup;
  g_set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  const bool ours = g_set_callback != nullptr && register_ompt_callbacks(lookup, g_set_callback);
  const bool theirs = g_chained != nullptr && g_set_callback != nullptr &&
                      g_chained->initialize(chained_lookup, initial_device_num, &g_chained->tool_data) != 0;
  if (!theirs) g_chained = nullptr;
  return ours || theirs ? 1 : 0;
}

void finalize(ompt_data_t*) {
  if (g_chained != nullptr && g_chained->finalize != nullptr) g_chained->finalize(&g_chained->tool_data);
}

ompt_start_tool_result_t g_result = {initialize, finalize, {0}};

// The first tool of OMP_TOOL_LIBRARIES (a colon-separated list) whose
// ompt_start_tool returns a result, as the OpenMP 5 runtime would choose.
ompt_start_tool_result_t* start_listed_tool(unsigned int omp_version, const char* runtime_version) {
  const char* list = std::getenv("OMP_TOOL_LIBRARIES");
  if (list == nullptr) return nullptr;
  char path[4096];
  for (const char* from = list; *from != '\0';) {
    const char* colon = std::strchr(from, ':');
    const size_t length = colon != nullptr ? static_cast<size_t>(colon - from) : std::strlen(from);
    if (length > 0 && length < sizeof path) {
      std::memcpy(path, from, length);
      path[length] = '\0';
      if (void* library = dlopen(path, RTLD_LAZY | RTLD_LOCAL)) {
        using StartTool = ompt_start_tool_result_t* (*)(unsigned int, const char*);
        const auto start = reinterpret_cast<StartTool>(dlsym(library, "ompt_start_tool"));
        if (start != nullptr && start != &ompt_start_tool)
          if (ompt_start_tool_result_t* result = start(omp_version, runtime_version)) return result;
        dlclose(library);
      }
    }
    if (colon == nullptr) break;
    from = colon + 1;
  }
  return nullptr;
}

}  // namespace

bool plugin_uses_event(ompt_callbacks_t event) { return event > 0 && event < kEventLimit && g_plugin_events[event]; }

void mark_plugin_event(ompt_callbacks_t event) {
  if (event > 0 && event < kEventLimit) g_plugin_events[event] = true;
}

}  // namespace lumen::omp

LUMEN_EXPORT ompt_start_tool_result_t* ompt_start_tool(unsigned int omp_version, const char* runtime_version) {
  const char* tool = std::getenv("OMP_TOOL");
  if (tool != nullptr && strcasecmp(tool, "disabled") == 0) return nullptr;
  lumen::omp::g_chained = lumen::omp::start_listed_tool(omp_version, runtime_version);
  return &lumen::omp::g_result;
}
