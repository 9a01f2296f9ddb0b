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
// Not signal-safe. Thread `tid` runs Java under `name` (JVMTI's, in full);
// a thread keeps the first such name.
void name_java_thread(const AgentContext& context, uint32_t tid, const std::string& name);
// Not signal-safe (at VMInit). Names the Java threads the JVM started
// before VMInit, `java_names` (GetAllThreads, GetThreadInfo), after the
// thread whose system name is the start of one of them and of no other.
void name_threads_started_before(const AgentContext& context, const std::vector<std::string>& java_names);
// Not signal-safe (a thread's end, on that thread). Names the ending
// thread `tid` as the system does when it is a JVM's own that never ran
// Java and has no name yet (the process's first thread, a launcher's, is
// not the JVM's).
void name_ending_jvm_thread(const AgentContext& context, uint32_t tid);
// Not signal-safe (at VMDeath, and at stop). Names the JVM's threads alive
// now that never ran Java and have no name yet.
void write_jvm_system_threads(const AgentContext& context);
// Not signal-safe. Whether a thread of the process has a name starting
// with one of `prefixes` (as the system knows it: 15 characters at most).
bool has_thread_named(const AgentContext& context, const std::vector<std::string>& prefixes);

}  // namespace lumen::java
