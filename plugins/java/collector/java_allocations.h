// Java allocations, sampled by the JVM (JVMTI SampledObjectAlloc, JDK 11 and
// later): about one object every `heap_interval` bytes a thread allocates,
// recorded into JAVA_CLASSES with the allocating thread's Java stack, the
// object's class and size, and the interval, from which analysis estimates
// the bytes and objects each method and class allocated.
#pragma once

#include <jvmti.h>

#include <cstdint>

namespace lumen::java {

// Not signal-safe (Agent_OnLoad). Asks the JVM for sampled allocations every
// `interval` bytes on average; false, with a note in the experiment log,
// when it cannot give them (a JVM older than 11). The event is enabled by
// java_allocations_enable once the callbacks are set.
bool java_allocations_init(jvmtiEnv* jvmti, uint32_t interval);
void java_allocations_enable(jvmtiEnv* jvmti);
// Not signal-safe. No more samples (before the census at the JVM's end).
void java_allocations_disable(jvmtiEnv* jvmti);

// The JVMTI callback (capability can_generate_sampled_object_alloc_events).
void JNICALL on_sampled_object_alloc(jvmtiEnv* jvmti, JNIEnv* env, jthread thread, jobject object, jclass klass,
                                     jlong size);

}  // namespace lumen::java
