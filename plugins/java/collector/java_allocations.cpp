#include "java_allocations.h"

#include <lumen/collector_support.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "../java_names.h"
#include "../java_record.h"
#include "java_agent.h"
#include "java_agent_calls.h"
#include "java_census.h"
#include "java_stacks.h"

namespace lumen::java {

namespace {

uint32_t g_interval = 0;

std::string allocated_class(jvmtiEnv* jvmti, jclass klass) {
  char* signature = nullptr;
  if (klass == nullptr || jvmti->GetClassSignature(klass, &signature, nullptr) != JVMTI_ERROR_NONE ||
      signature == nullptr)
    return "<unknown class>";
  std::string name = java_type_name(signature);
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  return name;
}

}  // namespace

bool java_allocations_init(jvmtiEnv* jvmti, uint32_t interval) {
  const lumen_runtime* runtime = agent_context().runtime;
  jvmtiCapabilities sampled{};
  sampled.can_generate_sampled_object_alloc_events = 1;
  if (jvmti->AddCapabilities(&sampled) != JVMTI_ERROR_NONE) {
    runtime->recording->log_note(
        "java: this JVM does not sample allocations (SampledObjectAlloc needs JDK 11 or later); "
        "Java allocations are not recorded");
    return false;
  }
  if (jvmti->SetHeapSamplingInterval(static_cast<jint>(interval)) != JVMTI_ERROR_NONE) {
    runtime->recording->log_note(
        "java: the JVM refused the allocation sampling interval; Java allocations are not recorded");
    return false;
  }
  g_interval = interval;
  return true;
}

void java_allocations_enable(jvmtiEnv* jvmti) {
  if (jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr) != JVMTI_ERROR_NONE)
    agent_context().runtime->recording->log_note(
        "java: the JVM refused SampledObjectAlloc events; Java allocations are not "
        "recorded");
}

void java_allocations_disable(jvmtiEnv* jvmti) {
  jvmti->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr);
}

void JNICALL on_sampled_object_alloc(jvmtiEnv* jvmti, JNIEnv*, jthread, jobject object, jclass klass, jlong size) {
  const CallbackScope scope;
  if (!scope) return;
  const AgentContext& context = agent_context();
  const std::string name = allocated_class(jvmti, klass);
  JavaAllocation sample{};
  sample.time_ns = context.runtime->time->now_ns();
  sample.stack_id = capture_java_stack(jvmti);
  sample.size = static_cast<uint64_t>(size > 0 ? size : 0);
  sample.interval = g_interval;
  sample.thread_id = context.runtime->threads->thread_id();
  sample.class_bytes = static_cast<uint16_t>(std::min<size_t>(name.size(), 1024));
  // Tagged, the object's fate at the JVM's end is known (java_census.h).
  const uint64_t tag = java_census_track(jvmti, object);
  const size_t tag_bytes = tag != 0 ? sizeof tag : 0;
  std::vector<char> record(tag_bytes + sizeof sample + sample.class_bytes);
  std::memcpy(record.data(), &tag, tag_bytes);
  std::memcpy(record.data() + tag_bytes, &sample, sizeof sample);
  std::memcpy(record.data() + tag_bytes + sizeof sample, name.data(), sample.class_bytes);
  context.runtime->recording->write_record(context.classes, tag != 0 ? kTrackedAllocationRecord : kAllocationRecord,
                                record.data(), static_cast<uint16_t>(record.size()));
}

}  // namespace lumen::java
