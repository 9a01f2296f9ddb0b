#include "java_frames.h"

#include <dlfcn.h>
#include <ucontext.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "../java_record.h"

namespace lumen::java {

namespace {

// HotSpot's layout (not in any header of the JDK).
struct CallFrame {
  jint bci;  // "lineno" in HotSpot: the bytecode index; -3 in a native method
  jmethodID method;
};
struct CallTrace {
  JNIEnv* env;
  jint frame_count;  // > 0, or a reason (kReasons) why there are none
  CallFrame* frames;
};
using AsyncGetCallTrace = void (*)(CallTrace* trace, jint depth, void* ucontext);

std::atomic<AsyncGetCallTrace> g_walker{nullptr};
__attribute__((tls_model("initial-exec"))) thread_local JNIEnv* t_env;

// AsyncGetCallTrace's answers of no frames, 0 .. -10, as HotSpot names them.
constexpr const char* kReasons[] = {"no Java frame",        "no class loaded",     "GC active",
                                    "unknown, not in Java", "not walkable, not in Java", "unknown, in Java",
                                    "not walkable, in Java", "unknown thread state", "thread exiting",
                                    "deoptimizing",         "at a safepoint"};
constexpr int kReasonCount = sizeof kReasons / sizeof kReasons[0];
std::atomic<uint64_t> g_unwalked[kReasonCount + 1];
static_assert(std::atomic<uint64_t>::is_always_lock_free, "counted in handlers");

// A method without a jmethodID (its class never went through the agent):
// a frame no function describes, which analysis shows as <Unknown>.
constexpr uint64_t kUnnamedMethodFrame = kJavaFrameTag | (2 * kMethodSpan) | uint64_t(kBciBias);

int copy_native(const uint64_t* native, int count, uint64_t* frames, int capacity) {
  const int n = count < capacity ? count : capacity;
  for (int i = 0; i < n; ++i) frames[i] = native[i];
  return n;
}

}  // namespace

bool java_frames_init(const void* jvm_function) {
  auto walker = reinterpret_cast<AsyncGetCallTrace>(dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"));
  Dl_info info{};
  if (walker == nullptr && dladdr(jvm_function, &info) != 0 && info.dli_fname != nullptr) {
    if (void* jvm = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)) {
      walker = reinterpret_cast<AsyncGetCallTrace>(dlsym(jvm, "AsyncGetCallTrace"));
      dlclose(jvm);
    }
  }
  g_walker.store(walker, std::memory_order_release);
  return walker != nullptr;
}

void java_frames_set_thread_env(JNIEnv* env) { t_env = env; }

namespace {
// Java frames the thread took itself (JVMTI's GetStackTrace in an event
// callback) for the stack it captures next.
__attribute__((tls_model("initial-exec"))) thread_local const uint64_t* t_taken_frames;
__attribute__((tls_model("initial-exec"))) thread_local int t_taken_count;
}  // namespace

uint64_t capture_with_java_frames(const lumen_runtime* runtime, const uint64_t* java_frames, int count) {
  ucontext_t here;
  if (getcontext(&here) != 0) return LUMEN_NO_STACK;
  t_taken_frames = java_frames;
  t_taken_count = count;
  const uint64_t stack = runtime->capture_stack(&here, 0);
  t_taken_count = 0;
  t_taken_frames = nullptr;
  return stack;
}

int provide_java_frames(void* ucontext, const uint64_t* native, int native_count, int native_in_objects,
                        uint64_t* frames, int capacity) {
  if (t_taken_count > 0) {
    // The native frames are the JVM's and the agent's event machinery.
    const int n = t_taken_count < capacity ? t_taken_count : capacity;
    for (int i = 0; i < n; ++i) frames[i] = t_taken_frames[i];
    return n;
  }
  const AsyncGetCallTrace walker = g_walker.load(std::memory_order_acquire);
  if (walker == nullptr || capacity < 2) return -1;
  JNIEnv* const env = t_env;
  if (env == nullptr) {
    const int n = copy_native(native, native_count, frames, capacity - 1);
    frames[n] = kJvmSystemBase | uint64_t(kBciBias);
    return n + 1;
  }
  constexpr int kMaxJavaFrames = 192;
  CallFrame java[kMaxJavaFrames];
  CallTrace trace{env, 0, java};
  // The native frames in loaded objects, and the generated code they were
  // called from (or the leaf in it): a compiled method's code, which
  // machine mode shows at its instructions; further native frames of
  // generated code are the Java frames' own.
  const int native_kept = native_in_objects < native_count ? native_in_objects + 1 : native_count;
  const int room = capacity - native_kept;
  walker(&trace, room < kMaxJavaFrames ? (room > 1 ? room : 1) : kMaxJavaFrames, ucontext);
  if (trace.frame_count <= 0) {
    const int reason = -trace.frame_count < kReasonCount ? -trace.frame_count : kReasonCount;
    g_unwalked[reason].fetch_add(1, std::memory_order_relaxed);
    const int n = copy_native(native, native_count, frames, capacity - 1);
    frames[n] = kNoJavaStackBase | uint64_t(kBciBias);
    return n + 1;
  }
  int n = copy_native(native, native_kept, frames, capacity - 1);
  for (int i = 0; i < trace.frame_count && n < capacity; ++i) {
    const auto method = reinterpret_cast<uint64_t>(java[i].method);
    frames[n++] = method_encodable(method) ? java_frame(method, java[i].bci) : kUnnamedMethodFrame;
  }
  return n;
}

void java_frames_report(const lumen_runtime* runtime) {
  std::string text;
  uint64_t total = 0;
  for (int i = 0; i <= kReasonCount; ++i) {
    const uint64_t count = g_unwalked[i].load(std::memory_order_relaxed);
    if (count == 0) continue;
    total += count;
    char part[96];
    std::snprintf(part, sizeof part, "%s%s: %llu", text.empty() ? "" : ", ", i < kReasonCount ? kReasons[i] : "other",
                  static_cast<unsigned long long>(count));
    text += part;
  }
  if (total == 0) return;
  runtime->log_note(("java: " + std::to_string(total) + " Java call stacks could not be walked (" + text + ")").c_str());
}

}  // namespace lumen::java
