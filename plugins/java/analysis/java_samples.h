// The Java allocation samples of every open experiment, read in parts
// (lumen_view_host.for_each_record_in_parts), with what the census at each
// JVM's end says of them: for -allocs and -leaks (java_heap_views.cpp).
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lumen::java {

// What a sample is known to be at the JVM's end.
enum class SampleFate {
  Live,     // tracked, and its tag survived the census's full collection
  Freed,    // tracked, and collected by then
  Unknown,  // no sound census of its experiment, or never tracked
};

struct SampleSite {
  std::vector<std::string> frames;  // function, load object, ... (leaf first)
  std::string klass;
  bool operator<(const SampleSite& other) const {
    return frames != other.frames ? frames < other.frames : klass < other.klass;
  }
};

struct JavaSample {
  size_t site;  // index in JavaSamples::sites
  double objects, bytes;  // the estimate it stands for
  SampleFate fate;
};

struct JavaSamples {
  std::vector<SampleSite> sites;
  size_t recorded = 0;               // samples in the experiments, selected or not
  std::vector<JavaSample> samples;   // those the user's selection keeps
  std::vector<uint32_t> intervals;   // the sampling intervals in force, ascending
  size_t experiments_with_census = 0;     // whose census is sound
  size_t experiments_without_census = 0;  // with samples, but no sound census
  std::vector<std::string> census_problems;  // why, one line per such experiment
};

// Reads every allocation and census record; false with a message when the
// view cannot go on (the host reports a malformed record itself).
bool read_java_samples(const lumen_view_host& host, JavaSamples& samples, std::string& problem);

}  // namespace lumen::java
