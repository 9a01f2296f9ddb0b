// Which threads of a JVM ran Java, and the names of those that did not:
// the JVM's own (GC, JIT compilers, the VM thread), which JVMTI does not
// show, named as the system knows them (/proc/self/task/TID/comm).
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "../java_record.h"
#include "java_agent.h"

namespace lumen::java {

namespace {

std::mutex g_mutex;
std::set<uint32_t> g_java_threads;
bool g_jvm_started = false;

// Read through the runtime: no descriptor of the program's table is taken.
std::string thread_comm(const lumen_runtime& runtime, uint32_t tid) {
  char text[64] = {};
  const long n = runtime.read_task_file(tid, "comm", text, sizeof text - 1);
  if (n <= 0) return {};
  std::string name(text, static_cast<size_t>(n));
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}

}  // namespace

void write_thread_record(const AgentContext& context, uint32_t tid, const std::string& name, uint16_t flags) {
  JavaThread header{context.runtime->now_ns(), tid, static_cast<uint16_t>(std::min<size_t>(name.size(), 1024)),
                    flags};
  std::vector<char> record(sizeof header + header.name_bytes);
  std::memcpy(record.data(), &header, sizeof header);
  std::memcpy(record.data() + sizeof header, name.data(), header.name_bytes);
  context.runtime->write_record(context.classes, kThreadRecord, record.data(), static_cast<uint16_t>(record.size()));
}

void note_java_thread(uint32_t tid) {
  const std::lock_guard lock(g_mutex);
  g_jvm_started = true;
  g_java_threads.insert(tid);
}

// The threads alive now that never ran Java, but the process's first (a
// launcher's, waiting for the JVM's).
void write_jvm_system_threads(const AgentContext& context) {
  std::set<uint32_t> java;
  {
    const std::lock_guard lock(g_mutex);
    if (!g_jvm_started) return;
    java = g_java_threads;
  }
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return;
  const auto first = static_cast<uint32_t>(getpid());
  while (const dirent* entry = readdir(tasks)) {
    const auto tid = static_cast<uint32_t>(std::strtoul(entry->d_name, nullptr, 10));
    if (tid == 0 || tid == first || java.count(tid) != 0) continue;
    const std::string name = thread_comm(*context.runtime, tid);
    if (!name.empty()) write_thread_record(context, tid, name, kJvmSystemThread);
  }
  closedir(tasks);
}

bool has_thread_named(const AgentContext& context, const std::vector<std::string>& prefixes) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return false;
  bool found = false;
  while (const dirent* entry = readdir(tasks)) {
    const auto tid = static_cast<uint32_t>(std::strtoul(entry->d_name, nullptr, 10));
    if (tid == 0) continue;
    const std::string name = thread_comm(*context.runtime, tid);
    for (const std::string& prefix : prefixes) found |= !name.empty() && name.rfind(prefix, 0) == 0;
  }
  closedir(tasks);
  return found;
}

}  // namespace lumen::java
