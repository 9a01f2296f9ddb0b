// The names of a JVM's threads. A Java thread is named as JVMTI gives its
// name (GetThreadInfo), in full: at its ThreadStart, or at VMInit for those
// the JVM started before it (Reference Handler, Finalizer, Signal
// Dispatcher), which JVMTI lists but never announces. The JVM's own threads
// (GC, JIT compilers, the VM thread), which JVMTI does not show, are named
// as the system knows them (their comm, 15 characters at most) while they
// are alive: as each ends, at VMDeath, and at the end for the rest.
#include <dirent.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "../java_record.h"
#include "java_agent.h"

namespace lumen::java {

namespace {

// The JVM names a thread it starts in the system as its Java name cut to
// this many bytes (pthread_setname_np's limit).
constexpr size_t kSystemNameBytes = 15;

std::mutex g_mutex;
std::set<uint32_t> g_java_threads;  // threads that ran Java, named by their Java names
std::set<uint32_t> g_named;         // threads with a name record
bool g_jvm_started = false;

// Read through the runtime: no descriptor of the program's table is taken.
std::string thread_comm(const lumen_runtime& runtime, uint32_t tid) {
  char text[64] = {};
  lumen_task_file file{tid, "comm", text, sizeof text - 1, -1};
  runtime.threads->read_task_files(&file, 1);
  const long n = file.bytes;
  if (n <= 0) return {};
  std::string name(text, static_cast<size_t>(n));
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}

std::vector<uint32_t> process_threads() {
  std::vector<uint32_t> tids;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return tids;
  while (const dirent* entry = readdir(tasks)) {
    const auto tid = static_cast<uint32_t>(std::strtoul(entry->d_name, nullptr, 10));
    if (tid != 0) tids.push_back(tid);
  }
  closedir(tasks);
  return tids;
}

// Whether `tid` still needs a name as the JVM's own thread; marks it named.
bool claim_system_name(uint32_t tid) {
  const std::lock_guard lock(g_mutex);
  if (!g_jvm_started || g_java_threads.count(tid) != 0) return false;
  return g_named.insert(tid).second;
}

}  // namespace

void write_thread_record(const AgentContext& context, uint32_t tid, const std::string& name, uint16_t flags) {
  JavaThread header{context.runtime->time->now_ns(), tid, static_cast<uint16_t>(std::min<size_t>(name.size(), 1024)),
                    flags};
  std::vector<char> record(sizeof header + header.name_bytes);
  std::memcpy(record.data(), &header, sizeof header);
  std::memcpy(record.data() + sizeof header, name.data(), header.name_bytes);
  context.runtime->recording->write_record(context.classes, kThreadRecord, record.data(),
                                           static_cast<uint16_t>(record.size()));
}

void name_java_thread(const AgentContext& context, uint32_t tid, const std::string& name) {
  {
    const std::lock_guard lock(g_mutex);
    g_jvm_started = true;
    // A thread keeps the name it first ran Java under: the launcher's main
    // thread attaches again as "DestroyJavaVM" to end the JVM.
    if (!g_java_threads.insert(tid).second) return;
    g_named.insert(tid);
  }
  write_thread_record(context, tid, name, 0);
}

void name_threads_started_before(const AgentContext& context, const std::vector<std::string>& java_names) {
  // The threads not named yet by the part of their name the system keeps;
  // a name two threads share in that part names neither.
  std::map<std::string, std::vector<uint32_t>> by_system_name;
  std::set<uint32_t> named;
  {
    const std::lock_guard lock(g_mutex);
    named = g_java_threads;
  }
  for (const uint32_t tid : process_threads())
    if (named.count(tid) == 0) by_system_name[thread_comm(*context.runtime, tid)].push_back(tid);
  std::map<std::string, int> java_by_system_name;
  for (const std::string& name : java_names) ++java_by_system_name[name.substr(0, kSystemNameBytes)];
  for (const std::string& name : java_names) {
    const std::string system_name = name.substr(0, kSystemNameBytes);
    const auto threads = by_system_name.find(system_name);
    if (system_name.empty() || java_by_system_name[system_name] != 1 || threads == by_system_name.end() ||
        threads->second.size() != 1)
      continue;
    name_java_thread(context, threads->second.front(), name);
  }
}

void name_ending_jvm_thread(const AgentContext& context, uint32_t tid) {
  char name[17] = {};
  if (tid == static_cast<uint32_t>(getpid()) || prctl(PR_GET_NAME, name, 0, 0, 0) != 0 || name[0] == '\0' ||
      !claim_system_name(tid))
    return;
  write_thread_record(context, tid, name, kJvmSystemThread);
}

// The threads alive now that never ran Java, but the process's first (a
// launcher's, waiting for the JVM's).
void write_jvm_system_threads(const AgentContext& context) {
  const auto first = static_cast<uint32_t>(getpid());
  for (const uint32_t tid : process_threads()) {
    if (tid == first) continue;
    const std::string name = thread_comm(*context.runtime, tid);
    if (!name.empty() && claim_system_name(tid)) write_thread_record(context, tid, name, kJvmSystemThread);
  }
}

bool has_thread_named(const AgentContext& context, const std::vector<std::string>& prefixes) {
  for (const uint32_t tid : process_threads()) {
    const std::string name = thread_comm(*context.runtime, tid);
    for (const std::string& prefix : prefixes)
      if (!name.empty() && name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace lumen::java
