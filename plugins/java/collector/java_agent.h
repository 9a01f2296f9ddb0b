// The JVMTI agent: the Java plugin's collector half as the JVM loads it
// (-agentpath, which collect's JAVA_TOOL_OPTIONS names). It is the same
// object the runtime preloaded and started, so it records through that
// runtime's streams.
#pragma once

#include <lumen/collector_plugin.h>

namespace lumen::java {

// What start() set up; the agent does nothing while `runtime` is null (a
// JVM in a process that is not collected).
struct AgentContext {
  const lumen_runtime* runtime = nullptr;
  lumen_stream classes = -1;  // JAVA_CLASSES
};
AgentContext& agent_context();

}  // namespace lumen::java
