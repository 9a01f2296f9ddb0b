// How Java programs show in each view mode. The recorded stack of a Java
// thread is its Java frames with the native frames of the code it was in
// below them (JNI C code, the JVM's own); a thread that never ran Java has
// its native stack under the root <JVM-System>, and a Java thread whose
// Java stack could not be walked its native stack under <no Java callstack
// recorded>. Below the Java frames lies the generated code the thread was
// in (a compiled method's instructions, the interpreter). User mode
// (Oracle's Java representation) keeps the Java frames only, and the two
// roots alone; expert mode hides the JVM's own frames and code (the Java
// frames stand for it), and shows the native frames instead of <no Java
// callstack recorded>; machine mode is the native stacks as recorded,
// without the roots.
//
// Stacks taken from outside a thread (an off-CPU sampler unwinding a
// blocked thread) have native frames only, with no root: in user mode one
// that passes through the JVM's generated code (the interpreter, a compiled
// method) is a Java thread's whose Java stack was not taken, and one
// through the JVM's own code alone is the JVM's. The roots are always
// shown as artificial functions, so that one name is one function however
// the stack came by it.
#include "java_view_modes.h"

#include <cstring>

#include "../java_record.h"

namespace lumen::java {

namespace {

uint64_t method_slot(uint64_t pc) { return pc & ~(kMethodSpan - 1); }

bool is_root(uint64_t pc) {
  return is_java_frame(pc) && (method_slot(pc) == kJvmSystemBase || method_slot(pc) == kNoJavaStackBase);
}

bool is_java_method(uint64_t pc) { return is_java_frame(pc) && !is_root(pc); }

// The JVM's own code (HotSpot).
bool is_jvm(const lumen_view_frame& frame) {
  return frame.load_object != nullptr && std::strncmp(frame.load_object, "libjvm.so", 9) == 0;
}

// Code the JVM generated (interpreter, stubs, compiled methods) at a
// machine address.
bool is_generated_code(const lumen_view_frame& frame) {
  return !is_java_frame(frame.pc) && frame.load_object != nullptr &&
         std::strcmp(frame.load_object, "<dynamic code>") == 0;
}

// The root a user-mode stack without Java frames folds into, or nullptr
// when it is no JVM's (a launcher's thread waiting for the JVM).
const char* user_mode_root(const lumen_view_frame* frames, size_t count) {
  const lumen_view_frame& outermost = frames[count - 1];
  if (is_root(outermost.pc))
    return method_slot(outermost.pc) == kJvmSystemBase ? kJvmSystemName : kNoJavaStackName;
  bool jvm = false;
  for (size_t i = 0; i < count; ++i) {
    if (is_generated_code(frames[i])) return kNoJavaStackName;
    jvm = jvm || is_jvm(frames[i]);
  }
  return jvm ? kJvmSystemName : nullptr;
}

}  // namespace

size_t fold_stack(lumen_view_mode mode, const lumen_view_frame* frames, size_t count, lumen_folded_frame* out) {
  if (count == 0) return 0;
  bool has_java = false;
  for (size_t i = 0; i < count; ++i) has_java = has_java || is_java_method(frames[i].pc);
  size_t n = 0;
  const auto keep = [&](size_t i) { out[n++] = {static_cast<int32_t>(i), nullptr}; };
  const auto artificial = [&](const char* name) { out[n++] = {-1, name}; };
  if (mode == LUMEN_VIEW_USER) {
    if (has_java) {
      for (size_t i = 0; i < count; ++i)
        if (is_java_method(frames[i].pc)) keep(i);
      return n;
    }
    if (const char* root = user_mode_root(frames, count)) {
      artificial(root);
      return n;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    if (is_root(frames[i].pc)) {
      // <no Java callstack recorded> gives way to the native frames.
      if (mode == LUMEN_VIEW_EXPERT && method_slot(frames[i].pc) == kJvmSystemBase) artificial(kJvmSystemName);
    } else if (mode != LUMEN_VIEW_EXPERT || (!is_jvm(frames[i]) && !(has_java && is_generated_code(frames[i])))) {
      keep(i);
    }
  }
  if (n == 0 && is_root(frames[count - 1].pc)) artificial(user_mode_root(frames, count));  // nothing else to show
  return n;
}

}  // namespace lumen::java
