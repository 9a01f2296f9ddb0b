// Java frames for the runtime's stack capture: AsyncGetCallTrace, HotSpot's
// signal-safe walker of a thread's Java stack, reconciled with the native
// frames libunwind found (java_record.h says how a Java frame is written).
#pragma once

#include <jni.h>
#include <lumen/collector_plugin.h>

namespace lumen::java {

// Not signal-safe. Finds AsyncGetCallTrace in the loaded libjvm (the one
// holding `jvm_function`); false when this JVM has none.
bool java_frames_init(const void* jvm_function);

// [signal-safe] The calling thread runs Java code with `env` (nullptr: it
// ended, or never did).
void java_frames_set_thread_env(JNIEnv* env);

// [signal-safe] The frame provider (lumen_frame_provider). Native frames up
// to the first one outside a loaded object (JIT code, the interpreter),
// then the Java frames, caller last. A thread that never ran Java (GC,
// compiler, VM threads) keeps its native stack under <JVM-System>; a Java
// thread whose Java stack could not be walked, under <no Java callstack
// recorded>. A Java stack deeper than the frames a stack holds
// (LUMEN_MAX_STACK_DEPTH) keeps its innermost frames and is flagged cut.
int provide_java_frames(void* ucontext, const uint64_t* native, int native_count, int native_in_objects,
                        uint64_t* frames, int capacity, uint32_t* stack_flags);

// Not signal-safe (an event callback's). The calling thread's stack as
// `java_frames` (java_record.h, the innermost first) say, recorded as the
// frame provider records a sampled one; the native frames below them (the
// JVM's event machinery) are left out. `cut`: the thread's stack has more
// Java frames than these.
uint64_t capture_with_java_frames(const lumen_runtime* runtime, const uint64_t* java_frames, int count, bool cut);

// Not signal-safe. Notes in the experiment log how many Java stacks could
// not be walked, by AsyncGetCallTrace's reason.
void java_frames_report(const lumen_runtime* runtime);

}  // namespace lumen::java
