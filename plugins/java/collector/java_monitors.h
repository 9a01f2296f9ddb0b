// Java monitors as synchronization waits: a contended synchronized block or
// method, and Object.wait, recorded into the sync plugin's data file with
// the waiting thread's Java stack and the monitor's class, when the process
// traces synchronization (collect -s) and the wait passed its threshold.
#pragma once

#include <jvmti.h>

namespace lumen::java {

// Not signal-safe. Finds the sync plugin this process loaded beside this
// one; false when there is none (no -s): no monitor events are asked for.
bool java_monitors_init();

// The JVMTI callbacks (capability can_generate_monitor_events).
void JNICALL on_monitor_contended_enter(jvmtiEnv* jvmti, JNIEnv* env, jthread thread, jobject object);
void JNICALL on_monitor_contended_entered(jvmtiEnv* jvmti, JNIEnv* env, jthread thread, jobject object);
void JNICALL on_monitor_wait(jvmtiEnv* jvmti, JNIEnv* env, jthread thread, jobject object, jlong timeout);
void JNICALL on_monitor_waited(jvmtiEnv* jvmti, JNIEnv* env, jthread thread, jobject object, jboolean timed_out);

}  // namespace lumen::java
