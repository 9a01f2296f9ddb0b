// The JVMTI agent: the Java plugin's collector half as the JVM loads it
// (-agentpath, which collect's JAVA_TOOL_OPTIONS names). It is the same
// object the runtime preloaded and started, so it records through that
// runtime's streams.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstdint>
#include <string>

namespace lumen::java {

// What start() set up; the agent does nothing while `runtime` is null (a
// JVM in a process that is not collected).
struct AgentContext {
  const lumen_runtime* runtime = nullptr;
  lumen_stream classes = -1;  // JAVA_CLASSES
};
AgentContext& agent_context();

// Not signal-safe. A thread's name record (java_record.h, JavaThread).
void write_thread_record(const AgentContext& context, uint32_t tid, const std::string& name, uint16_t flags);
// Not signal-safe. Thread `tid` runs Java.
void note_java_thread(uint32_t tid);
// Not signal-safe (at stop). Names the JVM's threads that never ran Java.
void write_jvm_system_threads(const AgentContext& context);

}  // namespace lumen::java
