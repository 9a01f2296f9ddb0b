// Agent_OnLoad, the agent's set-up (shared with collect -P's start in a JVM
// that already runs, java_running_jvm.h) and the JVMTI callbacks. They run
// on JVM threads in ordinary context (never in a signal handler), inside
// the runtime's re-entry guard so that what JVMTI allocates is not traced.
// What they describe:
//   * every method of every prepared class, as a function of the Java frame
//     space (java_record.h) in the load-object map, and in JAVA_CLASSES with
//     its class, source file, line table and bytecode;
//   * JIT-compiled methods (CompiledMethodLoad/Unload) and the JVM's
//     generated code (DynamicCodeGenerated: interpreter, stubs) at their
//     machine addresses, time-stamped, so machine PCs there resolve, and
//     compiled methods' code bytes (java_machine_code.h);
//   * which threads run Java (ThreadStart/End, VMInit), for the frame
//     provider, and their names;
//   * with -j heap, the allocations the JVM samples (java_allocations.h),
//     and at its end which of them are still reachable (java_census.h).
#include <jvmti.h>
#include <lumen/collector_support.h>
#include <lumen/plugin_abi.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "../java_names.h"
#include "../java_record.h"
#include "java_agent.h"
#include "java_agent_calls.h"
#include "java_allocations.h"
#include "java_census.h"
#include "java_frames.h"
#include "java_machine_code.h"
#include "java_monitors.h"
#include "jvmti_agent.h"

namespace lumen::java {

namespace {

using FuncLoad = void (*)(const char* name, const void* start, unsigned long size);
using FuncUnload = void (*)(const void* start);
FuncLoad g_func_load = nullptr;
FuncUnload g_func_unload = nullptr;

// A JVMTI string, deallocated at the end of the scope.
class JvmtiText {
 public:
  explicit JvmtiText(jvmtiEnv* jvmti) : jvmti_(jvmti) {}
  ~JvmtiText() {
    if (text_ != nullptr) jvmti_->Deallocate(reinterpret_cast<unsigned char*>(text_));
  }
  JvmtiText(const JvmtiText&) = delete;
  JvmtiText& operator=(const JvmtiText&) = delete;
  char** out() { return &text_; }
  std::string str() const { return text_ ? text_ : ""; }

 private:
  jvmtiEnv* jvmti_;
  char* text_ = nullptr;
};

std::string class_name(jvmtiEnv* jvmti, jclass klass) {
  JvmtiText signature(jvmti);
  if (jvmti->GetClassSignature(klass, signature.out(), nullptr) != JVMTI_ERROR_NONE) return "<unknown class>";
  return java_type_name(signature.str());
}

// "indexOf(int)"; a bridge method, which has the name and parameters of
// the method it calls and another return type, "make(long) [bridge]".
std::string method_name(jvmtiEnv* jvmti, jmethodID method) {
  JvmtiText name(jvmti), signature(jvmti);
  if (jvmti->GetMethodName(method, name.out(), signature.out(), nullptr) != JVMTI_ERROR_NONE) return "<unknown method>";
  constexpr jint kAccBridge = 0x0040;  // JVM specification, table 4.6-A
  jint modifiers = 0;
  const bool bridge = jvmti->GetMethodModifiers(method, &modifiers) == JVMTI_ERROR_NONE && (modifiers & kAccBridge);
  return name.str() + java_parameter_list(signature.str()) + (bridge ? kBridgeSuffix : "");
}

std::string qualified_name(jvmtiEnv* jvmti, jmethodID method) {
  jclass klass = nullptr;
  if (jvmti->GetMethodDeclaringClass(method, &klass) != JVMTI_ERROR_NONE) return method_name(jvmti, method);
  return class_name(jvmti, klass) + "." + method_name(jvmti, method);
}

void write_method(const AgentContext& context, jvmtiEnv* jvmti, jmethodID method, const std::string& klass,
                  const std::string& source) {
  const std::string name = method_name(jvmti, method);
  const auto id = reinterpret_cast<uint64_t>(method);
  if (!method_encodable(id)) return;
  if (g_func_load != nullptr)
    g_func_load((klass + "." + name).c_str(), reinterpret_cast<const void*>(method_base(id)), kMethodSpan);
  jint line_count = 0;
  jvmtiLineNumberEntry* lines = nullptr;
  if (jvmti->GetLineNumberTable(method, &line_count, &lines) != JVMTI_ERROR_NONE) line_count = 0;
  // The bytecode, for -disasm (none for a native or abstract method).
  jint code_length = 0;
  unsigned char* code = nullptr;
  if (jvmti->GetBytecodes(method, &code_length, &code) != JVMTI_ERROR_NONE) code_length = 0;
  JavaMethod header{};
  header.time_ns = context.runtime->time->now_ns();
  header.frame_base = method_base(id);
  header.class_bytes = static_cast<uint16_t>(std::min<size_t>(klass.size(), 4096));
  header.name_bytes = static_cast<uint16_t>(std::min<size_t>(name.size(), 4096));
  header.source_bytes = static_cast<uint16_t>(std::min<size_t>(source.size(), 1024));
  const size_t texts = header.class_bytes + header.name_bytes + header.source_bytes;
  const size_t room = (kMaxMethodRecord - sizeof header - texts) / sizeof(LineEntry);
  header.line_count = static_cast<uint16_t>(std::min<size_t>(size_t(line_count), room));
  const size_t table_end = sizeof header + texts + header.line_count * sizeof(LineEntry);
  BytecodeTail tail{static_cast<uint32_t>(std::max<jint>(code_length, 0)), 0};
  if (tail.code_length > 0 && table_end + sizeof tail < kMaxMethodRecord)
    tail.recorded_bytes =
        static_cast<uint16_t>(std::min<size_t>(tail.code_length, kMaxMethodRecord - table_end - sizeof tail));
  std::vector<char> record(table_end + (tail.code_length > 0 ? sizeof tail + tail.recorded_bytes : 0));
  char* at = record.data();
  std::memcpy(at, &header, sizeof header);
  at += sizeof header;
  std::memcpy(at, klass.data(), header.class_bytes);
  at += header.class_bytes;
  std::memcpy(at, name.data(), header.name_bytes);
  at += header.name_bytes;
  std::memcpy(at, source.data(), header.source_bytes);
  at += header.source_bytes;
  for (int i = 0; i < header.line_count; ++i, at += sizeof(LineEntry)) {
    const LineEntry entry{static_cast<int32_t>(lines[i].start_location), lines[i].line_number};
    std::memcpy(at, &entry, sizeof entry);
  }
  if (lines != nullptr) jvmti->Deallocate(reinterpret_cast<unsigned char*>(lines));
  if (tail.code_length > 0) {
    std::memcpy(at, &tail, sizeof tail);
    std::memcpy(at + sizeof tail, code, tail.recorded_bytes);
  }
  if (code != nullptr) jvmti->Deallocate(code);
  context.runtime->recording->write_record(context.classes, kMethodRecord, record.data(),
                                           static_cast<uint16_t>(record.size()));
}

// Describing a class's methods also makes their jmethodIDs, without which
// AsyncGetCallTrace reports their frames without a method.
int describe_class(jvmtiEnv* jvmti, jclass klass) {
  const AgentContext& context = agent_context();
  jint method_count = 0;
  jmethodID* methods = nullptr;
  if (jvmti->GetClassMethods(klass, &method_count, &methods) != JVMTI_ERROR_NONE) return 0;
  const std::string name = class_name(jvmti, klass);
  JvmtiText source(jvmti);
  jvmti->GetSourceFileName(klass, source.out());
  for (jint i = 0; i < method_count; ++i) write_method(context, jvmti, methods[i], name, source.str());
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
  return method_count;
}

// A thread's Java name, in full ("" when JVMTI gives none).
std::string java_thread_name(jvmtiEnv* jvmti, jthread thread) {
  jvmtiThreadInfo info{};
  if (jvmti->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE) return {};
  const std::string name = info.name ? info.name : "";
  if (info.name != nullptr) jvmti->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  return name;
}

void write_thread_name(jvmtiEnv* jvmti, jthread thread) {
  const AgentContext& context = agent_context();
  name_java_thread(context, context.runtime->threads->thread_id(), java_thread_name(jvmti, thread));
}

// The Java threads alive at VMInit, the JVM's own started before it
// (Reference Handler, Finalizer, ...), which no ThreadStart announces.
void name_threads_alive(jvmtiEnv* jvmti, JNIEnv* env, jthread current) {
  jint count = 0;
  jthread* threads = nullptr;
  if (jvmti->GetAllThreads(&count, &threads) != JVMTI_ERROR_NONE) return;
  std::vector<std::string> names;
  for (jint i = 0; i < count; ++i)
    if (!env->IsSameObject(threads[i], current)) names.push_back(java_thread_name(jvmti, threads[i]));
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(threads));
  name_threads_started_before(agent_context(), names);
}

void JNICALL on_class_prepare(jvmtiEnv* jvmti, JNIEnv*, jthread, jclass klass) {
  const CallbackScope scope;
  if (scope) describe_class(jvmti, klass);
}

// AsyncGetCallTrace walks nothing ("no class load") unless some agent has
// ClassLoad events enabled; there is nothing to do in them.
void JNICALL on_class_load(jvmtiEnv*, JNIEnv*, jthread, jclass) {}

void JNICALL on_thread_start(jvmtiEnv* jvmti, JNIEnv* env, jthread thread) {
  java_frames_set_thread_env(env);
  const CallbackScope scope;
  if (scope) write_thread_name(jvmti, thread);
}

void JNICALL on_thread_end(jvmtiEnv*, JNIEnv*, jthread) { java_frames_set_thread_env(nullptr); }

// Each compiled version of a method (a tier, an OSR compilation, a
// recompilation) is numbered in the order the JIT installed it, so that
// machine mode shows them apart: "App.hot(int) [compiled 2]". Code
// GenerateEvents reports again at VMInit keeps its number.
class CompiledVersions {
 public:
  int number(jmethodID method, const void* code) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto known = live_.find(code);
    if (known != live_.end() && known->second.first == method) return known->second.second;
    const int number = ++count_[method];
    live_[code] = {method, number};
    return number;
  }
  void unloaded(const void* code) {
    const std::lock_guard<std::mutex> lock(mutex_);
    live_.erase(code);
  }

 private:
  std::mutex mutex_;
  std::map<jmethodID, int> count_;
  std::map<const void*, std::pair<jmethodID, int>> live_;
};
// Never destroyed: the JVM's threads may report code while the process exits.
CompiledVersions& compiled_versions() {
  static auto* versions = new CompiledVersions;
  return *versions;
}

void JNICALL on_compiled_method_load(jvmtiEnv* jvmti, jmethodID method, jint code_size, const void* code_addr,
                                     jint map_length, const jvmtiAddrLocationMap* map, const void*) {
  const CallbackScope scope;
  if (!scope) return;
  const AgentContext& context = agent_context();
  // Named apart from the method's own function (its Java frames), which a
  // view of native frames may show beside it.
  if (g_func_load != nullptr)
    g_func_load(compiled_name(qualified_name(jvmti, method), compiled_versions().number(method, code_addr)).c_str(),
                code_addr, static_cast<unsigned long>(code_size));
  const auto id = reinterpret_cast<uint64_t>(method);
  const CompiledCode record{context.runtime->time->now_ns(), method_encodable(id) ? method_base(id) : 0,
                            reinterpret_cast<uint64_t>(code_addr), static_cast<uint64_t>(code_size)};
  context.runtime->recording->write_record(context.classes, kCompiledRecord, &record, sizeof record);
  write_machine_code(context, jvmti, method, code_addr, code_size, map_length, map);
}

void JNICALL on_compiled_method_unload(jvmtiEnv*, jmethodID method, const void* code_addr) {
  const CallbackScope scope;
  if (!scope) return;
  const AgentContext& context = agent_context();
  if (g_func_unload != nullptr) g_func_unload(code_addr);
  compiled_versions().unloaded(code_addr);
  const auto id = reinterpret_cast<uint64_t>(method);
  const CompiledCode record{context.runtime->time->now_ns(), method_encodable(id) ? method_base(id) : 0,
                            reinterpret_cast<uint64_t>(code_addr), 0};
  context.runtime->recording->write_record(context.classes, kCompiledRecord, &record, sizeof record);
}

void JNICALL on_dynamic_code(jvmtiEnv*, const char* name, const void* address, jint length) {
  const CallbackScope scope;
  if (scope && g_func_load != nullptr) g_func_load(name, address, static_cast<unsigned long>(length));
}

void JNICALL on_vm_init(jvmtiEnv* jvmti, JNIEnv* env, jthread thread) {
  java_frames_set_thread_env(env);
  const CallbackScope scope;
  if (!scope) return;
  write_thread_name(jvmti, thread);
  describe_running_vm(jvmti, env, thread);
}

// The JVM's end: its own threads named while they are all alive (it ends
// some before the process does), and which sampled objects are still
// reachable (-j heap).
void JNICALL on_vm_death(jvmtiEnv* jvmti, JNIEnv*) {
  const CallbackScope scope;
  if (!scope) return;
  note_vm_death();
  write_jvm_system_threads(agent_context());
  if (!agent_context().sample_allocations) return;
  java_allocations_disable(jvmti);
  java_census_take(jvmti);
}

constexpr jvmtiEvent kAgentEvents[] = {
    JVMTI_EVENT_VM_INIT,           JVMTI_EVENT_VM_DEATH,           JVMTI_EVENT_CLASS_LOAD,
    JVMTI_EVENT_CLASS_PREPARE,     JVMTI_EVENT_THREAD_START,       JVMTI_EVENT_THREAD_END,
    JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_COMPILED_METHOD_UNLOAD, JVMTI_EVENT_DYNAMIC_CODE_GENERATED};
constexpr jvmtiEvent kMonitorEvents[] = {JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
                                         JVMTI_EVENT_MONITOR_WAIT, JVMTI_EVENT_MONITOR_WAITED};

// The runtime's function-description calls (the collector API's), from the
// runtime itself: it may have been loaded without its symbols made global
// (collect -P loads it so).
template <typename Function>
Function runtime_function(const lumen_runtime* runtime, const char* name) {
  Dl_info info{};
  if (dladdr(runtime, &info) == 0 || info.dli_fname == nullptr) return nullptr;
  void* library = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) return nullptr;
  auto function = reinterpret_cast<Function>(dlsym(library, name));
  dlclose(library);  // the process's own reference keeps it loaded
  return function;
}

jint start_agent(JavaVM* vm) {
  AgentContext& context = agent_context();
  if (context.runtime == nullptr || context.runtime->guard->collecting() == 0) return JNI_OK;
  jvmtiEnv* jvmti = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK || jvmti == nullptr) {
    context.runtime->recording->log_note("java: the JVM offers no JVMTI 1.2 environment; Java is not profiled");
    return JNI_OK;
  }
  prepare_agent(jvmti);
  install_java_frames(vm);
  return JNI_OK;
}

}  // namespace

void prepare_agent(jvmtiEnv* jvmti) {
  const AgentContext& context = agent_context();
  g_func_load = runtime_function<FuncLoad>(context.runtime, "lumen_api_func_load");
  g_func_unload = runtime_function<FuncUnload>(context.runtime, "lumen_api_func_unload");
  // The roots the frame provider gives stacks without Java frames.
  if (g_func_load != nullptr) {
    g_func_load(kJvmSystemName, reinterpret_cast<const void*>(kJvmSystemBase), kMethodSpan);
    g_func_load(kNoJavaStackName, reinterpret_cast<const void*>(kNoJavaStackBase), kMethodSpan);
  }
  jvmtiCapabilities capabilities{};
  capabilities.can_generate_compiled_method_load_events = 1;
  capabilities.can_get_source_file_name = 1;
  capabilities.can_get_line_numbers = 1;
  capabilities.can_get_bytecodes = 1;
  if (jvmti->AddCapabilities(&capabilities) != JVMTI_ERROR_NONE)
    context.runtime->recording->log_note(
        "java: the JVM refused the capabilities for compiled code, line numbers and bytecode");
  // Java monitors as sync waits, when the process traces synchronization.
  jvmtiCapabilities monitors{};
  monitors.can_generate_monitor_events = 1;
  const bool monitor_events = java_monitors_init() && jvmti->AddCapabilities(&monitors) == JVMTI_ERROR_NONE;
  // Java allocations, sampled by the JVM (-j heap).
  const bool allocations =
      context.sample_allocations && java_allocations_init(jvmti, context.allocation_interval);
  if (allocations && context.census_at_end) java_census_init(jvmti);
  jvmtiEventCallbacks callbacks{};
  callbacks.SampledObjectAlloc = on_sampled_object_alloc;
  callbacks.VMInit = on_vm_init;
  callbacks.VMDeath = on_vm_death;
  callbacks.GarbageCollectionFinish = on_garbage_collection_finish;
  callbacks.ClassLoad = on_class_load;
  callbacks.ClassPrepare = on_class_prepare;
  callbacks.ThreadStart = on_thread_start;
  callbacks.ThreadEnd = on_thread_end;
  callbacks.CompiledMethodLoad = on_compiled_method_load;
  callbacks.CompiledMethodUnload = on_compiled_method_unload;
  callbacks.DynamicCodeGenerated = on_dynamic_code;
  callbacks.MonitorContendedEnter = on_monitor_contended_enter;
  callbacks.MonitorContendedEntered = on_monitor_contended_entered;
  callbacks.MonitorWait = on_monitor_wait;
  callbacks.MonitorWaited = on_monitor_waited;
  open_agent_calls();
  jvmti->SetEventCallbacks(&callbacks, sizeof callbacks);
  if (monitor_events)
    for (jvmtiEvent event : kMonitorEvents) jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
  if (allocations) java_allocations_enable(jvmti);
  for (jvmtiEvent event : kAgentEvents) jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
}

DescribedCode describe_running_vm(jvmtiEnv* jvmti, JNIEnv* env, jthread current) {
  name_threads_alive(jvmti, env, current);
  java_census_vm_started();
  DescribedCode described;
  jint class_count = 0;
  jclass* classes = nullptr;
  if (jvmti->GetLoadedClasses(&class_count, &classes) == JVMTI_ERROR_NONE) {
    for (jint i = 0; i < class_count; ++i) {
      jint status = 0;
      if (jvmti->GetClassStatus(classes[i], &status) != JVMTI_ERROR_NONE || !(status & JVMTI_CLASS_STATUS_PREPARED))
        continue;
      described.methods += describe_class(jvmti, classes[i]);
      ++described.classes;
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
  }
  jvmti->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD);
  jvmti->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  return described;
}

bool install_java_frames(JavaVM* vm) {
  const AgentContext& context = agent_context();
  // Any function of libjvm tells where it is.
  if (!java_frames_init(reinterpret_cast<const void*>(vm->functions->GetEnv))) {
    context.runtime->recording->log_note(
        "java: this JVM has no AsyncGetCallTrace; stacks are recorded without Java frames");
    return false;
  }
  if (context.runtime->stacks->set_frame_provider == nullptr ||
      context.runtime->stacks->set_frame_provider(provide_java_frames) != 0) {
    context.runtime->recording->log_note(
        "java: another frame provider is installed; stacks are recorded without Java frames");
    return false;
  }
  return true;
}

bool end_agent(jvmtiEnv* jvmti) {
  const AgentContext& context = agent_context();
  context.runtime->stacks->set_frame_provider(nullptr);
  for (jvmtiEvent event : kAgentEvents) jvmti->SetEventNotificationMode(JVMTI_DISABLE, event, nullptr);
  for (jvmtiEvent event : kMonitorEvents) jvmti->SetEventNotificationMode(JVMTI_DISABLE, event, nullptr);
  java_allocations_disable(jvmti);
  const bool none_running = close_agent_calls(5000);
  jvmti->SetEventCallbacks(nullptr, 0);
  jvmti->DisposeEnvironment();
  return none_running;
}

}  // namespace lumen::java

// The JVM's entry point of an agent (-agentpath). Never fails the JVM: a
// problem is noted in the experiment and the program runs on.
extern "C" __attribute__((visibility("default"))) jint JNICALL Agent_OnLoad(JavaVM* vm, char*, void*) {
  return lumen::java::start_agent(vm);
}
