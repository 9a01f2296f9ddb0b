#include "java_stacks.h"

#include <lumen/collector_plugin.h>

#include "../java_record.h"
#include "java_agent.h"
#include "java_frames.h"

namespace lumen::java {

namespace {
// As many as a recorded stack holds, and one more to tell a cut stack.
constexpr jint kMaxJavaFrames = jint{LUMEN_MAX_STACK_DEPTH};
}  // namespace

uint64_t capture_java_stack(jvmtiEnv* jvmti) {
  jvmtiFrameInfo frames[kMaxJavaFrames + 1];
  jint count = 0;
  if (jvmti->GetStackTrace(nullptr, 0, kMaxJavaFrames + 1, frames, &count) != JVMTI_ERROR_NONE || count <= 0)
    return LUMEN_NO_STACK;
  const bool cut = count > kMaxJavaFrames;
  if (cut) count = kMaxJavaFrames;
  uint64_t words[kMaxJavaFrames];
  for (jint i = 0; i < count; ++i) {
    const auto method = reinterpret_cast<uint64_t>(frames[i].method);
    // A native method's location is -1; the frame stays inside its method.
    words[i] = method_encodable(method) ? java_frame(method, static_cast<int32_t>(frames[i].location))
                                        : kUnnamedMethodFrame;
  }
  return capture_with_java_frames(agent_context().runtime, words, count, cut);
}

}  // namespace lumen::java
