#include "java_running_jvm.h"

#include <dlfcn.h>
#include <jvmti.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>

#include "java_agent.h"
#include "java_agent_calls.h"
#include "java_frames.h"
#include "jvmti_agent.h"

namespace lumen::java {

namespace {

std::atomic<JavaVM*> g_vm{nullptr};

// The agent's thread and the stop, which waits for it.
std::mutex g_mutex;
std::condition_variable g_changed;
bool g_stop_asked = false;
bool g_vm_dead = false;
bool g_thread_done = false;

int find_libjvm(dl_phdr_info* info, size_t, void* path) {
  const char* name = info->dlpi_name;
  const size_t length = name != nullptr ? std::strlen(name) : 0;
  constexpr char kJvm[] = "/libjvm.so";
  if (length < sizeof kJvm - 1 || std::strcmp(name + length - (sizeof kJvm - 1), kJvm) != 0) return 0;
  *static_cast<std::string*>(path) = name;
  return 1;
}

// The process's JVM (libjvm may be loaded without its symbols made global).
JavaVM* created_vm() {
  std::string path;
  dl_iterate_phdr(find_libjvm, &path);
  if (path.empty()) return nullptr;
  void* jvm = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (jvm == nullptr) return nullptr;
  using CreatedVms = jint(JNICALL*)(JavaVM**, jsize, jsize*);
  const auto created = reinterpret_cast<CreatedVms>(dlsym(jvm, "JNI_GetCreatedJavaVMs"));
  JavaVM* vm = nullptr;
  jsize count = 0;
  if (created == nullptr || created(&vm, 1, &count) != JNI_OK || count < 1) vm = nullptr;
  dlclose(jvm);  // the JVM's own reference keeps it loaded
  return vm;
}

void keep_plugin_loaded() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&keep_plugin_loaded), &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

void note(const std::string& text) { agent_context().runtime->recording->log_note(text.c_str()); }

// Sets the agent up, holds the JVM thread until the stop (blocked in a
// wait, as a native thread: the JVM's safepoints go on), and ends it.
void* agent_thread(void*) {
  mark_agent_thread();
  // The collector's threads block every signal; the JVM's code this one
  // runs takes its own faults (SafeFetch, stack banging) in the JVM's
  // handlers, and a fault blocked would end the process instead.
  sigset_t faults;
  sigemptyset(&faults);
  for (const int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP}) sigaddset(&faults, signal);
  pthread_sigmask(SIG_UNBLOCK, &faults, nullptr);
  // Started from start(): collection runs once every plugin has started,
  // and what the agent describes before would be refused.
  const lumen_runtime* const runtime = agent_context().runtime;
  for (int waited_ms = 0; runtime->guard->collecting() == 0 && waited_ms < 10000; ++waited_ms) poll(nullptr, 0, 1);
  JavaVM* const vm = g_vm.load(std::memory_order_acquire);
  JNIEnv* env = nullptr;
  jvmtiEnv* jvmti = nullptr;
  JavaVMAttachArgs thread{JNI_VERSION_1_6, const_cast<char*>("lumen-java"), nullptr};
  if (runtime->guard->collecting() == 0) {
    note("java: collection did not begin within 10 s of the plugin's start; the agent was not started");
  } else if (vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), &thread) != JNI_OK) {
    env = nullptr;
    note("java: the running JVM refused the collector's thread; Java methods are not named");
  } else if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK || jvmti == nullptr) {
    jvmti = nullptr;
    note("java: the running JVM offers no JVMTI 1.2 environment; Java methods are not named");
  } else {
    const auto began = std::chrono::steady_clock::now();
    prepare_agent(jvmti);
    jthread self = nullptr;
    jvmti->GetCurrentThread(&self);
    const DescribedCode described = describe_running_vm(jvmti, env, self);
    install_java_frames(vm);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
    note("java: the agent started in the running JVM in " + std::to_string(ms.count()) + " ms, describing its " +
         std::to_string(described.classes) + " classes (" + std::to_string(described.methods) + " methods)");
  }
  std::unique_lock lock(g_mutex);
  g_changed.wait(lock, [] { return g_stop_asked || g_vm_dead; });
  // Once the JVM has ended, a call into it would wait for ever.
  if (!g_vm_dead) {
    lock.unlock();
    if (jvmti != nullptr && !end_agent(jvmti))
      note("java: a JVMTI callback of the agent's still ran 5 s after the detach began");
    if (env != nullptr) vm->DetachCurrentThread();
    lock.lock();
  }
  g_thread_done = true;
  g_changed.notify_all();
  return nullptr;
}

}  // namespace

bool start_in_running_jvm() {
  JavaVM* const vm = created_vm();
  if (vm == nullptr) return false;
  {
    const std::lock_guard lock(g_mutex);
    g_stop_asked = g_vm_dead = g_thread_done = false;
  }
  keep_plugin_loaded();
  g_vm.store(vm, std::memory_order_release);
  if (agent_context().runtime->work->start_thread(agent_thread, nullptr) != 0) {
    g_vm.store(nullptr, std::memory_order_release);
    note("java: no thread could be started for the agent; Java methods are not named");
    const std::lock_guard lock(g_mutex);
    g_thread_done = true;
  }
  return true;
}

void running_jvm_thread_begin() {
  JavaVM* const vm = g_vm.load(std::memory_order_acquire);
  if (vm == nullptr) return;
  // jni_GetEnv reads the thread's own JVM pointer (thread-local): no lock,
  // no transition into the VM.
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) == JNI_OK) java_frames_set_thread_env(env);
}

void note_vm_death() {
  const std::lock_guard lock(g_mutex);
  g_vm_dead = true;
  g_changed.notify_all();
}

void stop_in_running_jvm() {
  if (g_vm.load(std::memory_order_acquire) == nullptr) return;
  std::unique_lock lock(g_mutex);
  g_stop_asked = true;
  g_changed.notify_all();
  // Describing the classes of a large program takes a while; a JVM that
  // keeps the agent's thread longer is named, and the runtime stays loaded
  // while that thread lives.
  if (!g_changed.wait_for(lock, std::chrono::seconds(20), [] { return g_thread_done; })) {
    lock.unlock();
    note("java: the agent's thread did not end within 20 s of the stop");
  }
  g_vm.store(nullptr, std::memory_order_release);
}

}  // namespace lumen::java
