// Java profiling in a JVM that ran before collection began (collect -P).
// The agent is started from inside the process, on a thread of the
// collector's that the JVM knows for as long as collect stays attached,
// and ended there at the detach while the JVM runs on. The JVM's own
// attach mechanism (the socket jcmd uses) is not used: it would leave the
// JVM a listening thread, a socket file and the agent library for good,
// and the SIGQUIT that starts it ends a JVM run with -Xrs.
#pragma once

#include <lumen/collector_plugin.h>

namespace lumen::java {

// Not signal-safe (start). Finds the JVM of this process and starts the
// agent's thread; false when no JVM runs here yet.
bool start_in_running_jvm();

// [signal-safe] (thread_begin, from where collect stopped the thread) A
// Java thread's JNIEnv, which AsyncGetCallTrace walks its Java frames by
// (a thread the JVM starts later has it from ThreadStart). Nothing
// unless started in a running JVM.
void running_jvm_thread_begin();

// Not signal-safe (stop). Ends the agent while the JVM runs on (not once
// the JVM has ended) and lets its thread go. The plugin's code stays
// loaded after a detach: the JVM may have been about to call an event
// callback of the agent's as it ended.
void stop_in_running_jvm();

}  // namespace lumen::java
