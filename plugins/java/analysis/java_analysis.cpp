// Java profiling on the host. Java frames need nothing of this half: the
// agent described each method as a function of the Java frame space in the
// load-object map (java_record.h), so every view names them. It checks the
// JAVA_CLASSES records (methods with their source files and line tables,
// compiled code) and adds no events of its own, names the threads (Java
// names; the JVM's housekeeping threads as the system's); it says how
// Java stacks show in each view mode (java_view_modes.cpp).
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "../java_record.h"
#include "java_view_modes.h"

namespace {

using namespace lumen::java;

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  size_t needed = 0;
  if (kind == kMethodRecord && bytes >= sizeof(JavaMethod)) {
    JavaMethod method;
    std::memcpy(&method, payload, sizeof method);
    needed = sizeof method + method.class_bytes + method.name_bytes + method.source_bytes +
             size_t(method.line_count) * sizeof(LineEntry);
  } else if (kind == kCompiledRecord) {
    needed = sizeof(CompiledCode);
  } else if (kind == kThreadRecord && bytes >= sizeof(JavaThread)) {
    JavaThread thread;
    std::memcpy(&thread, payload, sizeof thread);
    needed = sizeof thread + thread.name_bytes;
    if (needed <= bytes) {
      const std::string name(static_cast<const char*>(payload) + sizeof thread, thread.name_bytes);
      lumen_name_thread(sink, thread.thread_id, name.c_str(),
                        (thread.flags & kJvmSystemThread) ? LUMEN_THREAD_RUNTIME_SYSTEM : LUMEN_THREAD_PROGRAM);
    }
  } else {
    needed = SIZE_MAX;
  }
  if (needed <= bytes) return 0;
  std::snprintf(error, error_size, "JAVA_CLASSES record of kind %u and %u bytes is not one", kind, bytes);
  return 1;
}

const lumen_analysis_descriptor kPlugin = {
    .abi_version = LUMEN_PLUGIN_ABI_VERSION,
    .name = "java",
    .version = "1.0",
    .data_file = kDataFile,
    .decode = decode,
    .fold_stack = lumen::java::fold_stack,
    .decodes_in_parts = 1,  // each record is checked alone; thread names go through the sink
};

}  // namespace

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() {
  return &kPlugin;
}
