// Which sampled Java objects are still reachable when the JVM ends, for
// -leaks. A Java object is never freed by the program: the garbage
// collector takes it once nothing references it, so a Java leak is an
// object still reachable at the end. The agent tags each sampled object
// (JVMTI SetTag, capability can_tag_objects; tags live in the JVM's tag
// map, which drops an object's tag when the collector frees it). At
// VMDeath it stops sampling, forces a full garbage collection
// (ForceGarbageCollection, counting the collections that finished meanwhile
// with GarbageCollectionFinish events), walks the tagged objects that
// survived (IterateThroughHeap, untagged ones filtered out) and records
// their tags, then a JavaCensus record saying the census is complete
// (java_record.h). Analysis trusts a census only when it is complete and a
// collection ran; a JVM killed or crashed leaves none.
#pragma once

#include <jvmti.h>

#include <cstdint>

namespace lumen::java {

// Not signal-safe (Agent_OnLoad). Asks for the capabilities; false, with a
// note in the experiment log, when the JVM refuses them or runs a collector
// whose threads stop before VMDeath (ZGC, Shenandoah: a forced collection
// could wait for ever) or that never collects (Epsilon).
bool java_census_init(jvmtiEnv* jvmti);

// Not signal-safe (the sampling callback). Tags `object` with a new tag and
// returns it; 0 when the census is off or tagging failed.
uint64_t java_census_track(jvmtiEnv* jvmti, jobject object);

// Not signal-safe (VMInit, while the collector's threads run). Turns the
// census off, with a note, under a collector whose threads are gone by
// VMDeath (ZGC, Shenandoah, told by their threads' names).
void java_census_vm_started();

// Not signal-safe (the VMDeath callback, after sampling was disabled).
void java_census_take(jvmtiEnv* jvmti);

// The JVMTI callback counting finished collections (runs inside the
// collection: it only increments an atomic counter).
void JNICALL on_garbage_collection_finish(jvmtiEnv* jvmti);

}  // namespace lumen::java
