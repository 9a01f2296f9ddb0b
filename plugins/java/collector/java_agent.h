// The JVMTI agent: the Java plugin's collector half as the JVM loads it
// (-agentpath, which collect's JAVA_TOOL_OPTIONS names). It is the same
// object the runtime preloaded and started, so it records through that
// runtime's streams.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lumen::java {

// What start() set up; the agent does nothing while `runtime` is null (a
// JVM in a process that is not collected).
struct AgentContext {
  const lumen_runtime* runtime = nullptr;
  lumen_stream classes = -1;  // JAVA_CLASSES
  // Java allocations sampled (-j heap), about one per this many bytes.
  bool sample_allocations = false;
  uint32_t allocation_interval = 0;
  // Which sampled objects are still reachable at the JVM's end (heap_census).
  bool census_at_end = false;
};
AgentContext& agent_context();

// Not signal-safe. A thread's name record (java_record.h, JavaThread).
void write_thread_record(const AgentContext& context, uint32_t tid, const std::string& name, uint16_t flags);
// Not signal-safe. Thread `tid` runs Java.
void note_java_thread(uint32_t tid);
// Not signal-safe (at stop). Names the JVM's threads that never ran Java.
void write_jvm_system_threads(const AgentContext& context);
// Not signal-safe. Whether a thread of the process has a name starting
// with one of `prefixes` (as the system knows it: 15 characters at most).
bool has_thread_named(const AgentContext& context, const std::vector<std::string>& prefixes);

}  // namespace lumen::java
