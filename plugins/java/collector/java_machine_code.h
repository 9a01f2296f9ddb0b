// The machine code of JIT-compiled methods (CompiledMethodLoad) in
// JAVA_CLASSES, for -disasm in machine mode: the code's bytes as the JIT
// installed them, with JVMTI's PC -> bytecode index map and the method's
// lines. The JVM may free or move the code later (CompiledMethodUnload):
// the bytes are read during the load event, while the code is the
// method's. The code of one experiment is bounded (the java plugin's
// option code_limit); past it, the experiment's log says so.
#pragma once

#include <jvmti.h>

#include <cstdint>

#include "java_agent.h"

namespace lumen::java {

// Not signal-safe (at start). At most `limit` bytes of machine code are
// recorded in all; 0 records none.
void java_machine_code_init(uint64_t limit);

// Not signal-safe (a CompiledMethodLoad callback, on the thread the JVM
// posts it from). Writes the MachineCode record of the method's code.
void write_machine_code(const AgentContext& context, jvmtiEnv* jvmti, jmethodID method, const void* code_addr,
                        jint code_size, jint map_length, const jvmtiAddrLocationMap* map);

// Not signal-safe (at stop). Notes in the experiment's log how much code
// was recorded and what the limit left out.
void java_machine_code_report(const lumen_runtime* runtime);

}  // namespace lumen::java
