#include "java_monitors.h"

#include <lumen/collector_support.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../../sync/sync_record.h"
#include "../java_names.h"
#include "../java_record.h"
#include "java_agent.h"
#include "java_agent_calls.h"
#include "java_stacks.h"

namespace lumen::java {

namespace {

using ThresholdFn = int64_t (*)();
using RecordedElsewhereFn = void (*)(int delta);
ThresholdFn g_threshold = nullptr;
RecordedElsewhereFn g_recorded_elsewhere = nullptr;
lumen_stream g_sync_stream = -1;

// When the thread began waiting for a monitor (0: it is not waiting).
thread_local uint64_t t_enter_ns;
thread_local uint64_t t_wait_ns;

std::string monitor_class(jvmtiEnv* jvmti, JNIEnv* env, jobject object) {
  jclass klass = env->GetObjectClass(object);
  if (klass == nullptr) return "<unknown class>";
  char* signature = nullptr;
  std::string name = "<unknown class>";
  if (jvmti->GetClassSignature(klass, &signature, nullptr) == JVMTI_ERROR_NONE && signature != nullptr) {
    name = java_type_name(signature);
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  }
  env->DeleteLocalRef(klass);
  return name;
}

// "java.lang.Object@1b6d3586": the class and the identity hash code, as
// Object.toString shows an object. The object moves in the heap; its
// identity hash code stays, so it tells the monitors of one class apart.
std::string monitor_name(jvmtiEnv* jvmti, JNIEnv* env, jobject object) {
  std::string name = monitor_class(jvmti, env, object);
  jint hash = 0;
  if (jvmti->GetObjectHashCode(object, &hash) == JVMTI_ERROR_NONE) {
    char text[16];
    std::snprintf(text, sizeof text, "@%x", static_cast<unsigned>(hash));
    name += text;
  }
  return name;
}

// FNV-1a: the monitor's name stands for its identity.
uint64_t name_hash(const std::string& name) {
  uint64_t hash = 1469598103934665603ull;
  for (const unsigned char c : name) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

void record(jvmtiEnv* jvmti, JNIEnv* env, jobject object, uint64_t request_ns, sync::Call call) {
  const AgentContext& context = agent_context();
  const uint64_t grant_ns = context.runtime->time->now_ns();
  const int64_t threshold = g_threshold();
  if (threshold < 0 || request_ns == 0 || grant_ns - request_ns <= uint64_t(threshold)) return;
  const TraceGuard guard(context.runtime);
  if (!guard) return;
  const std::string monitor = monitor_name(jvmti, env, object);
  sync::SyncWait wait{};
  wait.request_ns = request_ns;
  wait.grant_ns = grant_ns;
  wait.object = name_hash(monitor);
  wait.stack_id = capture_java_stack(jvmti);
  wait.thread_id = context.runtime->threads->thread_id();
  wait.object_kind = static_cast<uint16_t>(sync::ObjectKind::kJavaMonitor);
  wait.call = static_cast<uint16_t>(call);
  const size_t name_bytes = std::min<size_t>(monitor.size(), 1024);
  std::vector<char> payload(sizeof wait + name_bytes);
  std::memcpy(payload.data(), &wait, sizeof wait);
  std::memcpy(payload.data() + sizeof wait, monitor.data(), name_bytes);
  context.runtime->recording->write_record(g_sync_stream, sync::kMonitorWaitRecord, payload.data(),
                                static_cast<uint16_t>(payload.size()));
}

// The JVM waits for the monitor on its own condition variables and
// mutexes: the sync plugin leaves those waits out while this one lasts.
uint64_t begin_wait() {
  g_recorded_elsewhere(+1);
  return agent_context().runtime->time->now_ns();
}

uint64_t end_wait(uint64_t* began) {
  g_recorded_elsewhere(-1);
  const uint64_t request = *began;
  *began = 0;
  return request;
}

}  // namespace

bool java_monitors_init() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&java_monitors_init), &info) == 0 || info.dli_fname == nullptr) return false;
  std::string path = info.dli_fname;  // .../plugins/java/collector.so
  const size_t java_dir = path.rfind("/java/");
  if (java_dir == std::string::npos) return false;
  path = path.substr(0, java_dir) + "/sync/collector.so";
  void* sync = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (sync == nullptr) return false;
  g_threshold = reinterpret_cast<ThresholdFn>(dlsym(sync, "lumen_sync_threshold_ns"));
  g_recorded_elsewhere = reinterpret_cast<RecordedElsewhereFn>(dlsym(sync, "lumen_sync_recorded_elsewhere"));
  dlclose(sync);  // the runtime's own reference keeps it loaded
  if (g_threshold == nullptr || g_recorded_elsewhere == nullptr) return false;
  g_sync_stream = agent_context().runtime->recording->open_stream(sync::kDataFile);
  return g_sync_stream >= 0;
}

void JNICALL on_monitor_contended_enter(jvmtiEnv*, JNIEnv*, jthread, jobject) {
  const AgentCall call;
  if (call) t_enter_ns = begin_wait();
}

void JNICALL on_monitor_contended_entered(jvmtiEnv* jvmti, JNIEnv* env, jthread, jobject object) {
  const AgentCall call;
  if (call && t_enter_ns != 0) record(jvmti, env, object, end_wait(&t_enter_ns), sync::Call::kMonitorEnter);
}

void JNICALL on_monitor_wait(jvmtiEnv*, JNIEnv*, jthread, jobject, jlong) {
  const AgentCall call;
  if (call) t_wait_ns = begin_wait();
}

void JNICALL on_monitor_waited(jvmtiEnv* jvmti, JNIEnv* env, jthread, jobject object, jboolean) {
  const AgentCall call;
  if (call && t_wait_ns != 0) record(jvmti, env, object, end_wait(&t_wait_ns), sync::Call::kMonitorWait);
}

}  // namespace lumen::java
