// The calling thread's Java stack as JVMTI gives it in an event callback
// (GetStackTrace: the innermost method first, inlined methods as frames of
// their own), recorded as the frame provider records a sampled one.
#pragma once

#include <jvmti.h>

#include <cstdint>

namespace lumen::java {

// Not signal-safe (an event callback's). The stack's id in the experiment,
// or LUMEN_NO_STACK when the thread has no Java frames.
uint64_t capture_java_stack(jvmtiEnv* jvmti);

}  // namespace lumen::java
