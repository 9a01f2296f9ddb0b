// How Java programs show in each view mode. The recorded stack of a Java
// thread is its Java frames with the native frames of the code it was in
// below them (JNI C code, the JVM's own); a thread that never ran Java has
// its native stack under the root <JVM-System>, and a Java thread whose
// Java stack could not be walked its native stack under <no Java callstack
// recorded>. User mode (Oracle's Java representation) keeps the Java frames
// only, and the two roots alone; expert mode hides the JVM's own frames,
// and shows the native frames instead of <no Java callstack recorded>;
// machine mode is the native stacks as recorded, without the roots.
#include "java_view_modes.h"

#include <cstring>

#include "../java_record.h"

namespace lumen::java {

namespace {

bool is_root(uint64_t pc) {
  const uint64_t base = pc & ~(kMethodSpan - 1);
  return base == kJvmSystemBase || base == kNoJavaStackBase;
}

bool is_jvm_system(uint64_t pc) { return (pc & ~(kMethodSpan - 1)) == kJvmSystemBase; }

// The JVM's own code (HotSpot).
bool is_jvm(const lumen_view_frame& frame) {
  return frame.load_object != nullptr && std::strncmp(frame.load_object, "libjvm.so", 9) == 0;
}

}  // namespace

size_t fold_stack(lumen_view_mode mode, const lumen_view_frame* frames, size_t count, lumen_folded_frame* out) {
  if (count == 0) return 0;
  const lumen_view_frame& outermost = frames[count - 1];
  const bool rooted = is_java_frame(outermost.pc) && is_root(outermost.pc);
  bool has_java = false;
  for (size_t i = 0; i < count; ++i) has_java = has_java || (is_java_frame(frames[i].pc) && !is_root(frames[i].pc));
  size_t n = 0;
  const auto keep = [&](size_t i) { out[n++] = {static_cast<int32_t>(i), nullptr}; };
  if (mode == LUMEN_VIEW_USER && (rooted || has_java)) {
    if (rooted) {
      keep(count - 1);
      return n;
    }
    for (size_t i = 0; i < count; ++i)
      if (is_java_frame(frames[i].pc)) keep(i);
    return n;
  }
  for (size_t i = 0; i < count; ++i) {
    const bool root = is_java_frame(frames[i].pc) && is_root(frames[i].pc);
    if (mode == LUMEN_VIEW_MACHINE) {
      if (!root) keep(i);
    } else if (root) {
      if (is_jvm_system(frames[i].pc)) keep(i);  // <no Java callstack recorded> gives way to the native frames
    } else if (!is_jvm(frames[i])) {
      keep(i);
    }
  }
  if (n == 0 && rooted) keep(count - 1);  // nothing else to show
  return n;
}

}  // namespace lumen::java
