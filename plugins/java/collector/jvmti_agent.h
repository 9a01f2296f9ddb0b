// The JVMTI agent's parts, in the order a start takes them: at a JVM's
// start (Agent_OnLoad, then VMInit), or in a JVM that already runs
// (collect -P: java_running_jvm.h), where the agent also ends while the
// JVM runs on. Not signal-safe: each runs on a thread the JVM knows.
#pragma once

#include <jvmti.h>

namespace lumen::java {

// The capabilities, the callbacks and the events (the agent's calls opened).
void prepare_agent(jvmtiEnv* jvmti);
// What the JVM holds already: the names of its threads alive (but
// `current`'s), every prepared class's methods (which makes the
// jmethodIDs AsyncGetCallTrace needs), the compiled methods and the
// generated code.
struct DescribedCode {
  long classes = 0, methods = 0;
};
DescribedCode describe_running_vm(jvmtiEnv* jvmti, JNIEnv* env, jthread current);
// The frame provider: Java frames in every stack from now on; false (noted
// in the experiment) when they cannot be.
bool install_java_frames(JavaVM* vm);
// The agent's end while the JVM runs on: the frame provider removed, every
// event disabled, the calls closed and the environment disposed of; false
// when a callback still ran after 5 s.
bool end_agent(jvmtiEnv* jvmti);

// Called by VMDeath: the JVM is gone, and with it JVMTI (java_running_jvm.cpp).
void note_vm_death();

}  // namespace lumen::java
