// -allocs and -leaks of Java experiments (the native heap plugin defines
// views of the same names for traced malloc; er_print shows each plugin's
// where the experiments hold its data). From the JVM's allocation samples
// (-j heap): estimates scaled by the sampling interval, by allocation site
// (the Java stack, as the Java representation names it) and class.
//
// A Java object is never freed by the program: the garbage collector takes
// it once nothing references it. So a Java "leak" is an object still
// reachable when the JVM ends, which the agent's census tells for the
// sampled objects it tracked (java_record.h, JavaCensus). Where there is no
// sound census, -leaks says so and shows those samples' allocation sites
// instead, titled as such: never an empty table that reads "no leaks".
#pragma once

#include <lumen/analysis_plugin.h>

namespace lumen::java {

int run_java_allocs_view(const lumen_view_host* host, char* error, size_t error_size);
int run_java_leaks_view(const lumen_view_host* host, char* error, size_t error_size);

}  // namespace lumen::java
