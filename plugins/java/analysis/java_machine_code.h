// A MachineCode record of JAVA_CLASSES (a JIT-compiled method's code
// bytes, java_record.h) as code er_print disassembles in machine mode: the
// bytes at the code's own addresses, its lines and bytecode indexes from
// the JIT's PC map. The record is untrusted: every size is checked against
// the record before anything is read.
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstddef>

namespace lumen::java {

// Describes the record's code through the sink. Returns 0, or non-zero
// with what is wrong with the record in `error`.
int describe_machine_code(const void* payload, size_t bytes, const lumen_event_sink* sink, char* error,
                          size_t error_size);

}  // namespace lumen::java
