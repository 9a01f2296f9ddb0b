// Java profiling on the host. Java frames need nothing of this half to be
// named: the agent described each method as a function of the Java frame
// space in the load-object map (java_record.h), so every view names them.
// It checks the JAVA_CLASSES records, describes each method's source file
// and line table to er_print (java_method_code.h: -lines, -source), and
// each compiled method's machine code (java_machine_code.h: -disasm in
// machine mode), names
// the threads (Java names; the JVM's housekeeping
// threads as the system's); it says how Java stacks show in each view mode
// (java_view_modes.cpp). An experiment that sampled Java allocations
// (-j heap) has their estimated bytes and objects as metrics on the
// allocating Java stacks, -jallocs by class (java_allocations.h), and
// -allocs and -leaks by allocation site (java_heap_views.h).
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

#include "../java_record.h"
#include "java_allocations.h"
#include "java_heap_views.h"
#include "java_machine_code.h"
#include "java_method_code.h"
#include "java_view_modes.h"

namespace {

using namespace lumen::java;

// The decoder context of an experiment that sampled Java allocations.
int g_allocations_declared;

// Allocation metrics for the experiments collected with -j heap only, so
// that other Java experiments show no empty columns.
int configure(const lumen_experiment_facts* facts, lumen_configuration* configuration, char*, size_t) {
  if (std::strcmp(lumen_option(facts->options, facts->option_count, "heap", "0"), "1") != 0) return 0;
  configuration->metrics = kAllocationMetricDefs;
  configuration->metric_count = kAllocationMetrics;
  configuration->decoder_context = &g_allocations_declared;
  return 0;
}

int decode(void* state, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink,
           char* error, size_t error_size) {
  size_t needed = 0;
  const bool allocation = kind == kAllocationRecord || kind == kTrackedAllocationRecord;
  if (allocation && state == &g_allocations_declared) {
    return decode_allocation(kind, payload, bytes, sink, error, error_size);
  } else if (allocation) {
    needed = sizeof(JavaAllocation);  // an experiment that declared no allocation metrics
  } else if (kind == kLiveObjectsRecord) {
    needed = sizeof(JavaLiveObjects);  // the census, for -leaks
  } else if (kind == kCensusRecord) {
    needed = sizeof(JavaCensus);
  } else if (kind == kMethodRecord && bytes >= sizeof(JavaMethod)) {
    JavaMethod method;
    std::memcpy(&method, payload, sizeof method);
    needed = sizeof method + method.class_bytes + method.name_bytes + method.source_bytes +
             size_t(method.line_count) * sizeof(LineEntry);
    if (needed <= bytes) describe_method_code(payload, bytes, sink);
  } else if (kind == kCompiledRecord) {
    needed = sizeof(CompiledCode);
  } else if (kind == kMachineCodeRecord) {
    return describe_machine_code(payload, bytes, sink, error, error_size);
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

// -allocs and -leaks share their names with the native heap plugin's
// views: er_print runs each plugin's where the experiments hold its data.
const lumen_view_def kViews[] = {
    {"jallocs",
     "Java allocations by class: bytes and objects estimated from the JVM's allocation samples (-j heap)",
     run_allocations_by_class},
    {"allocs",
     "Java allocations sampled by the JVM (-j heap), by allocation site and class: estimates scaled by the "
     "sampling interval",
     run_java_allocs_view},
    {"leaks",
     "sampled Java objects still reachable at the JVM's end (a census after a full garbage collection), by "
     "allocation site and class: estimates",
     run_java_leaks_view},
};

const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "java",
    .version = "1.0",
    .data_file = kDataFile,
    .configure = configure,
    .decode = decode,
    .decodes_in_parts = 1,  // each record is checked alone; thread names go through the sink
    .views = kViews,
    .view_count = std::size(kViews),
    .fold_stack = lumen::java::fold_stack,
};

}  // namespace

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() {
  return &kPlugin;
}
