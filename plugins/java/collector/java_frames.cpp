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

// The most frames a recorded stack holds: those of a Java stack deeper
// than that are cut at its outer end, and say so.
constexpr int kMaxFrames = int{LUMEN_MAX_STACK_DEPTH};

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
  for (std::atomic<uint64_t>& count : g_unwalked) count.store(0, std::memory_order_relaxed);  // this collection's
  g_walker.store(walker, std::memory_order_release);
  return walker != nullptr;
}

void java_frames_set_thread_env(JNIEnv* env) { t_env = env; }

namespace {
// Java frames the thread took itself (JVMTI's GetStackTrace in an event
// callback) for the stack it captures next, and whether they were cut.
__attribute__((tls_model("initial-exec"))) thread_local const uint64_t* t_taken_frames;
__attribute__((tls_model("initial-exec"))) thread_local int t_taken_count;
__attribute__((tls_model("initial-exec"))) thread_local bool t_taken_cut;

void set_cut(uint32_t* flags, bool cut) {
  *flags = cut ? (*flags | LUMEN_STACK_TRUNCATED) : (*flags & ~uint32_t{LUMEN_STACK_TRUNCATED});
}

// The native frames up to `capacity` - 1 and the root after them; cut when
// the native frames were, or do not fit.
int native_under_root(const uint64_t* native, int native_count, uint64_t root, uint64_t* frames, int capacity,
                      uint32_t* flags) {
  const int n = copy_native(native, native_count, frames, capacity - 1);
  frames[n] = root | uint64_t(kBciBias);
  if (n < native_count) set_cut(flags, true);
  return n + 1;
}
}  // namespace

uint64_t capture_with_java_frames(const lumen_runtime* runtime, const uint64_t* java_frames, int count, bool cut) {
  ucontext_t here;
  if (getcontext(&here) != 0) return LUMEN_NO_STACK;
  t_taken_frames = java_frames;
  t_taken_count = count;
  t_taken_cut = cut;
  const uint64_t stack = runtime->stacks->capture_stack(&here, 0);
  t_taken_count = 0;
  t_taken_frames = nullptr;
  return stack;
}

int provide_java_frames(void* ucontext, const uint64_t* native, int native_count, int native_in_objects,
                        uint64_t* frames, int capacity, uint32_t* flags) {
  if (t_taken_count > 0) {
    // The native frames are the JVM's and the agent's event machinery.
    const int n = t_taken_count < capacity ? t_taken_count : capacity;
    for (int i = 0; i < n; ++i) frames[i] = t_taken_frames[i];
    set_cut(flags, t_taken_cut || n < t_taken_count);
    return n;
  }
  const AsyncGetCallTrace walker = g_walker.load(std::memory_order_acquire);
  if (walker == nullptr || capacity < 2) return -1;
  if (capacity > kMaxFrames) capacity = kMaxFrames;
  JNIEnv* const env = t_env;
  if (env == nullptr) return native_under_root(native, native_count, kJvmSystemBase, frames, capacity, flags);
  // The native frames in loaded objects, and the generated code they were
  // called from (or the leaf in it): a compiled method's code, which
  // machine mode shows at its instructions; further native frames of
  // generated code are the Java frames' own. At least one Java frame fits.
  int native_kept = native_in_objects < native_count ? native_in_objects + 1 : native_count;
  if (native_kept > capacity - 1) native_kept = capacity - 1;
  const int room = capacity - native_kept;
  // One frame more than there is room for tells a stack that is cut from
  // one that fits exactly.
  CallFrame java[kMaxFrames + 1];
  CallTrace trace{env, 0, java};
  walker(&trace, room + 1, ucontext);
  if (trace.frame_count <= 0) {
    const int reason = -trace.frame_count < kReasonCount ? -trace.frame_count : kReasonCount;
    g_unwalked[reason].fetch_add(1, std::memory_order_relaxed);
    return native_under_root(native, native_count, kNoJavaStackBase, frames, capacity, flags);
  }
  int n = copy_native(native, native_kept, frames, native_kept);
  const int java_kept = trace.frame_count < room ? trace.frame_count : room;
  for (int i = 0; i < java_kept; ++i) {
    const auto method = reinterpret_cast<uint64_t>(java[i].method);
    frames[n++] = method_encodable(method) ? java_frame(method, java[i].bci) : kUnnamedMethodFrame;
  }
  // The native frames beyond those kept are the Java frames' own: whether
  // they were cut does not matter, whether the Java frames were does.
  set_cut(flags, trace.frame_count > room);
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
  runtime->recording->log_note(
      ("java: " + std::to_string(total) + " Java call stacks could not be walked (" + text + ")").c_str());
}

}  // namespace lumen::java
