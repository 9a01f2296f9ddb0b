#include "java_census.h"

#include <lumen/collector_support.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../java_record.h"
#include "java_agent.h"

namespace lumen::java {

namespace {

bool g_census = false;
std::atomic<uint64_t> g_next_tag{1};
std::atomic<uint32_t> g_collections{0};

// Tags collected by the heap walk, into room reserved before it: the walk's
// callback runs while the JVM is stopped at a safepoint and allocates nothing.
struct LiveTags {
  std::vector<uint64_t> tags;
  size_t count = 0;
};

jint JNICALL visit_tagged(jlong, jlong, jlong* tag_ptr, jint, void* user_data) {
  auto* live = static_cast<LiveTags*>(user_data);
  if (tag_ptr != nullptr && *tag_ptr != 0 && live->count < live->tags.size())
    live->tags[live->count++] = static_cast<uint64_t>(*tag_ptr);
  return 0;  // go on
}

// The JVM's options as the launcher and the environment give them.
std::string jvm_options(const lumen_runtime& runtime) {
  std::vector<char> cmdline(1 << 16);
  lumen_task_file file{0, "cmdline", cmdline.data(), cmdline.size() - 1, -1};
  runtime.threads->read_task_files(&file, 1);
  const long n = file.bytes;
  std::string text(cmdline.data(), n > 0 ? static_cast<size_t>(n) : 0);
  std::replace(text.begin(), text.end(), '\0', ' ');
  for (const char* name : {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"})
    if (const char* value = std::getenv(name)) text += std::string(" ") + value;
  return text;
}

}  // namespace

bool java_census_init(jvmtiEnv* jvmti) {
  const lumen_runtime* runtime = agent_context().runtime;
  const std::string options = jvm_options(*runtime);
  for (const char* collector : {"+UseZGC", "+UseShenandoahGC", "+UseEpsilonGC"})
    if (options.find(collector) != std::string::npos) {
      runtime->recording->log_note((std::string("java: no census of live Java objects at the JVM's end under -XX:") +
                                    collector +
                                    " (its collector cannot be made to collect then); -leaks cannot tell Java leaks")
                                       .c_str());
      return false;
    }
  jvmtiCapabilities census{};
  census.can_tag_objects = 1;
  census.can_generate_garbage_collection_events = 1;
  if (jvmti->AddCapabilities(&census) != JVMTI_ERROR_NONE) {
    runtime->recording->log_note(
        "java: the JVM cannot tag objects; no census of live Java objects at its end, so -leaks "
        "cannot tell Java leaks");
    return false;
  }
  g_census = true;
  return true;
}

uint64_t java_census_track(jvmtiEnv* jvmti, jobject object) {
  if (!g_census || object == nullptr) return 0;
  const uint64_t tag = g_next_tag.fetch_add(1, std::memory_order_relaxed);
  return jvmti->SetTag(object, static_cast<jlong>(tag)) == JVMTI_ERROR_NONE ? tag : 0;
}

void JNICALL on_garbage_collection_finish(jvmtiEnv*) { g_collections.fetch_add(1, std::memory_order_relaxed); }

void java_census_vm_started() {
  if (!g_census) return;
  const AgentContext& context = agent_context();
  // ZGC's and Shenandoah's collections are run by threads of theirs that
  // the JVM stops (and they end) before VMDeath: a forced collection would
  // wait for ever. Their threads, alive now, tell them however they were
  // chosen.
  if (has_thread_named(context, {"ZDriver", "ZDirector", "Shenandoah"})) {
    g_census = false;
    context.runtime->recording->log_note("java: no census of live Java objects at the JVM's end: its collector (ZGC or "
                              "Shenandoah) cannot collect then; -leaks cannot tell Java leaks");
  }
}

void java_census_take(jvmtiEnv* jvmti) {
  if (!g_census) return;
  const AgentContext& context = agent_context();
  JavaCensus census{};
  census.time_ns = context.runtime->time->now_ns();
  census.tracked = g_next_tag.load(std::memory_order_relaxed) - 1;
  // A full collection frees every tracked object nothing references; its
  // tag leaves the tag map with it.
  g_collections.store(0, std::memory_order_relaxed);
  jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, nullptr);
  const bool collected = jvmti->ForceGarbageCollection() == JVMTI_ERROR_NONE;
  jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, nullptr);
  census.collections = collected ? g_collections.load(std::memory_order_relaxed) : 0;
  LiveTags live;
  live.tags.resize(census.tracked);
  jvmtiHeapCallbacks callbacks{};
  callbacks.heap_iteration_callback = visit_tagged;
  if (jvmti->IterateThroughHeap(JVMTI_HEAP_FILTER_UNTAGGED, nullptr, &callbacks, &live) != JVMTI_ERROR_NONE) {
    context.runtime->recording->log_note(
        "java: the JVM refused to walk its heap; no census of live Java objects at its end");
    return;
  }
  // Tags in records of at most kTagsPerRecord, then the census itself.
  constexpr size_t kTagsPerRecord = 4096;
  std::vector<char> record;
  for (size_t first = 0; first < live.count; first += kTagsPerRecord) {
    const JavaLiveObjects header{census.time_ns, static_cast<uint32_t>(std::min(kTagsPerRecord, live.count - first))};
    record.resize(sizeof header + header.count * sizeof(uint64_t));
    std::memcpy(record.data(), &header, sizeof header);
    std::memcpy(record.data() + sizeof header, live.tags.data() + first, header.count * sizeof(uint64_t));
    context.runtime->recording->write_record(context.classes, kLiveObjectsRecord, record.data(),
                                  static_cast<uint16_t>(record.size()));
  }
  census.live = live.count;
  context.runtime->recording->write_record(context.classes, kCensusRecord, &census, sizeof census);
}

}  // namespace lumen::java
