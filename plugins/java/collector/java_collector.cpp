// Java profiling, the collector half. In every collected process it names
// itself as a JVMTI agent in JAVA_TOOL_OPTIONS, which every JVM reads at
// start (one started by a script too); in a JVM, the agent (jvmti_agent.cpp)
// describes Java code and installs the frame provider that adds Java frames
// to every clock and hardware-counter stack (java_frames.h). Loaded into a
// JVM that already runs (collect -P), it starts the agent there itself
// (java_running_jvm.h) and changes nothing of the process's environment.
#include <lumen/collector_plugin.h>
#include <lumen/collector_support.h>

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>

#include "../java_record.h"
#include "java_agent.h"
#include "java_frames.h"
#include "java_machine_code.h"
#include "java_running_jvm.h"

namespace lumen::java {

AgentContext& agent_context() {
  static AgentContext context;
  return context;
}

namespace {

std::string own_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&agent_context), &info) == 0 || info.dli_fname == nullptr) return {};
  return info.dli_fname;
}

// JAVA_TOOL_OPTIONS gains "-agentpath:OWN_PATH" and the -J options, in
// front of what the program set; an exec'd descendant finds them there
// already. DebugNonSafepoints has the JIT describe every PC of compiled
// code, not only safepoints: without it AsyncGetCallTrace places a sample
// in the method (of those inlined there) owning the nearest safepoint.
void name_agent_for_jvms(const std::string& jvm_options) {
  const std::string agent =
      "-agentpath:" + own_path() + " -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints";
  const char* existing = std::getenv("JAVA_TOOL_OPTIONS");
  if (existing != nullptr && std::string(existing).find(agent) != std::string::npos) return;
  std::string value = agent;
  if (!jvm_options.empty()) value += " " + jvm_options;
  if (existing != nullptr && *existing != '\0') value += " " + std::string(existing);
  setenv("JAVA_TOOL_OPTIONS", value.c_str(), 1);
}

// -j PATH: the JDK a script's `java` comes from.
void put_jdk_first(const std::string& jdk) {
  if (jdk.empty()) return;
  const std::string bin = jdk + "/bin";
  const char* path = std::getenv("PATH");
  const std::string current = path ? path : "";
  if (current.rfind(bin + ":", 0) == 0) return;
  setenv("PATH", (bin + (current.empty() ? "" : ":" + current)).c_str(), 1);
}

int start(const lumen_runtime* runtime, const lumen_option_value* options, size_t count, char* error,
          size_t error_size) {
  AgentContext& context = agent_context();
  context.classes = runtime->recording->open_stream(kDataFile);
  if (context.classes < 0) {
    std::snprintf(error, error_size, "cannot create the data file '%s'", kDataFile);
    return 1;
  }
  context.runtime = runtime;
  context.sample_allocations = std::string(lumen_option(options, count, "heap", "0")) == "1";
  context.allocation_interval =
      static_cast<uint32_t>(std::strtoul(lumen_option(options, count, "heap_interval", "524288"), nullptr, 10));
  context.census_at_end = std::string(lumen_option(options, count, "heap_census", "1")) == "1";
  java_machine_code_init(std::strtoull(lumen_option(options, count, "code_limit", "67108864"), nullptr, 10));
  if (attached(runtime)) {
    if (start_in_running_jvm()) return 0;
    std::snprintf(error, error_size, "no JVM runs in this process yet");
    return 1;
  }
  put_jdk_first(lumen_option(options, count, "jdk", ""));
  name_agent_for_jvms(lumen_option(options, count, "jvm_options", ""));
  return 0;
}

// A Java thread that ran before collect -P attached: its JNIEnv.
void thread_begin() { running_jvm_thread_begin(); }

// A JVM's own thread is named as it ends: the JVM ends its concurrent GC
// threads and others before the process ends.
void thread_end() {
  const AgentContext& context = agent_context();
  if (context.runtime != nullptr) name_ending_jvm_thread(context, context.runtime->threads->thread_id());
}

void stop() {
  AgentContext& context = agent_context();
  if (context.runtime == nullptr) return;
  stop_in_running_jvm();
  java_frames_report(context.runtime);
  java_machine_code_report(context.runtime);
  write_jvm_system_threads(context);
}

// -j PATH must name a JDK: checked before the target starts.
int check(const lumen_option_value* options, size_t count, char* error, size_t error_size) {
  const std::string jdk = lumen_option(options, count, "jdk", "");
  struct stat info{};
  if (jdk.empty() || (stat((jdk + "/bin/java").c_str(), &info) == 0 && S_ISREG(info.st_mode))) return 0;
  std::snprintf(error, error_size, "-j %s: no JDK there (%s/bin/java is not a file)", jdk.c_str(), jdk.c_str());
  return 1;
}

const lumen_option_def kOptions[] = {
    {"jdk", LUMEN_OPTION_STRING, "", 0, 0, 0, "the JDK whose bin/ the target's PATH finds first (-j PATH)"},
    {"jvm_options", LUMEN_OPTION_STRING, "", 0, 0, 0, "options for every JVM the target starts (-J)"},
    {"heap", LUMEN_OPTION_BOOLEAN, "off", 0, 0, 0,
     "sample Java allocations: the object's class and size and the allocating Java stack (JVMTI "
     "SampledObjectAlloc, JDK 11 and later; -j heap)"},
    {"heap_interval", LUMEN_OPTION_INTEGER, "524288", 0, 1073741824, 0,
     "mean bytes a thread allocates between two sampled Java allocations (0: every allocation)"},
    {"heap_census", LUMEN_OPTION_BOOLEAN, "on", 0, 0, 0,
     "with heap: at the JVM's end, a full garbage collection and a census of the sampled objects still "
     "reachable (-leaks); off leaves the end of the run as it was"},
    {"code_limit", LUMEN_OPTION_INTEGER, "67108864", 0, int64_t(1) << 40, 0,
     "bytes of JIT-compiled methods' machine code recorded at most (for -disasm in machine mode; 0: none)"},
};

const lumen_flag_alias kFlagAliases[] = {{"on", ""}, {"heap", "heap=on"}};

const lumen_collector_hooks kHooks = {.size = sizeof(lumen_collector_hooks), .check = check};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "java",
    .version = "1.0",
    .data_file = kDataFile,
    .description = "Java profiling: Java frames in clock and counter stacks (JVMTI agent, AsyncGetCallTrace), "
                   "sampled Java allocations",
    .options = kOptions,
    .option_count = std::size(kOptions),
    .flag = {"j", "jdk", kFlagAliases, std::size(kFlagAliases),
             "-j on|off|heap|PATH  Java profiling (on by default for a JVM; heap: Java allocations sampled too; PATH: "
             "the JDK scripts run)"},
    .start = start,
    .thread_begin = thread_begin,
    .thread_end = thread_end,
    .stop = stop,
    .host_hooks = &kHooks,
    .attach = LUMEN_WORKS_AFTER_ATTACH,
};

}  // namespace

}  // namespace lumen::java

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin() {
  return &lumen::java::kPlugin;
}
