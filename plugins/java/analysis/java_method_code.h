// A method record of JAVA_CLASSES as code er_print can place at lines: its
// frame words, the .java file its class came from (the class's SourceFile
// attribute under its package's directories), its line table and its
// bytecode as text (java_bytecode.h).
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstddef>
#include <string>

namespace lumen::java {

// "com/acme/App.java" for class "com.acme.App$Inner" compiled from
// "App.java"; empty when the source file is unknown or is no plain file
// name (a SourceFile attribute naming directories is not followed).
std::string java_source_path(const std::string& class_name, const std::string& source_file);

// Describes a method record (JavaMethod + texts + line table, checked to
// fit `bytes` by the caller, and the bytecode after it, if any) through
// the sink.
void describe_method_code(const void* payload, size_t bytes, const lumen_event_sink* sink);

}  // namespace lumen::java
