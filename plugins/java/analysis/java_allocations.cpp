#include "java_allocations.h"

#include <lumen/analysis_support.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../java_record.h"

namespace lumen::java {

namespace {

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;

// An estimate as a whole number, rounded up with the probability of its
// fraction: rounding each sample to the nearest would bias a method's sum
// (a sample of 1/p = 4.6 objects would always count 5). The draw is a hash
// of the record, so a reading is repeatable.
int64_t dithered(double value, uint64_t seed) {
  uint64_t x = seed + 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  const double whole = std::floor(value);
  const double draw = double(x >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  return static_cast<int64_t>(whole) + (draw < value - whole ? 1 : 0);
}

}  // namespace

bool read_allocation_record(uint16_t kind, const void* payload, uint16_t bytes, JavaAllocation& sample,
                            std::string& klass, uint64_t& tag) {
  const auto* at = static_cast<const char*>(payload);
  tag = 0;
  if (kind == kTrackedAllocationRecord) {
    if (bytes < sizeof tag) return false;
    std::memcpy(&tag, at, sizeof tag);
    at += sizeof tag;
    bytes = static_cast<uint16_t>(bytes - sizeof tag);
  } else if (kind != kAllocationRecord) {
    return false;
  }
  if (bytes < sizeof sample) return false;
  std::memcpy(&sample, at, sizeof sample);
  if (sizeof sample + sample.class_bytes > bytes) return false;
  klass.assign(at + sizeof sample, sample.class_bytes);
  return true;
}

AllocationEstimate estimate_allocation(uint64_t size, uint32_t interval) {
  if (size == 0) return {1.0, 0.0};
  if (interval == 0) return {1.0, double(size)};  // every allocation was sampled
  // -expm1 keeps p exact for objects far smaller than the interval.
  const double p = -std::expm1(-double(size) / double(interval));
  return {1.0 / p, double(size) / p};
}

const lumen_metric_def kAllocationMetricDefs[kAllocationMetrics] = {
    {"jallocbytes", "Java Bytes Allocated (sampled estimate)", LUMEN_UNIT_BYTES, kAllFlavors,
     "Bytes of Java objects allocated, estimated from the JVM's allocation samples (SampledObjectAlloc) and its "
     "sampling interval: each sample stands for the bytes the interval makes it likely to represent",
     0, 0},
    {"jalloccnt", "Java Objects Allocated (sampled estimate)", LUMEN_UNIT_COUNT, kAllFlavors,
     "Java objects allocated, estimated from the JVM's allocation samples and its sampling interval", 0, 0},
    {"jallocsamples", "Java Allocation Samples", LUMEN_UNIT_COUNT, kAllFlavors,
     "Allocations the JVM sampled: what the estimates rest on (their relative error is about one over the "
     "square root of this count)",
     0, 1},
};

int decode_allocation(uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
                      size_t error_size) {
  JavaAllocation sample;
  std::string klass;
  uint64_t tag = 0;
  if (!read_allocation_record(kind, payload, bytes, sample, klass, tag)) {
    std::snprintf(error, error_size, "JAVA_CLASSES allocation record of %u bytes is not one", bytes);
    return 1;
  }
  const AllocationEstimate estimate = estimate_allocation(sample.size, sample.interval);
  // An event counts in int64_t: no object is that large.
  if (!(estimate.bytes < 0x1p63)) {
    std::snprintf(error, error_size,
                  "JAVA_CLASSES allocation sample of %llu bytes stands for more bytes than an event counts",
                  static_cast<unsigned long long>(sample.size));
    return 1;
  }
  int64_t values[kAllocationMetrics] = {};
  const uint64_t seed = sample.time_ns ^ (uint64_t(sample.thread_id) << 32) ^ sample.stack_id;
  values[kAllocatedBytes] = dithered(estimate.bytes, seed);
  values[kAllocatedObjects] = dithered(estimate.objects, ~seed);
  values[kAllocationSamples] = 1;
  lumen_event event{sample.time_ns, sample.stack_id, sample.thread_id, -1, values};
  sink->emit(sink->context, &event);
  return 0;
}

namespace {

struct ClassTotal {
  double bytes = 0;
  double objects = 0;
  double samples = 0;
};

struct Aggregate {
  const lumen_view_host* host = nullptr;
  std::map<std::string, ClassTotal> classes;
  std::set<uint32_t> intervals;
  ClassTotal total;
  std::string problem;
};

void visit_record(void* arg, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* aggregate = static_cast<Aggregate*>(arg);
  if (kind != kAllocationRecord && kind != kTrackedAllocationRecord) return;
  JavaAllocation sample;
  std::string klass;
  uint64_t tag = 0;
  if (!read_allocation_record(kind, payload, bytes, sample, klass, tag)) {
    aggregate->problem = "JAVA_CLASSES allocation record of " + std::to_string(bytes) + " bytes is not one";
    return;
  }
  if (!aggregate->host->selected(aggregate->host->context, sample.time_ns, sample.thread_id)) return;
  const AllocationEstimate estimate = estimate_allocation(sample.size, sample.interval);
  for (ClassTotal* total : {&aggregate->classes[klass], &aggregate->total}) {
    total->bytes += estimate.bytes;
    total->objects += estimate.objects;
    total->samples += 1;
  }
  aggregate->intervals.insert(sample.interval);
}

}  // namespace

int run_allocations_by_class(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    // Read once while the selection stays (lumen::kept_records).
    std::unique_ptr<Aggregate> own;
    std::string problem;
    const Aggregate* read = kept_records(host, "allocations by class", visit_record, own, problem);
    if (read == nullptr) {
      std::snprintf(error, error_size, "%s", problem.c_str());
      return 1;
    }
    const Aggregate& aggregate = *read;
    host->summary(host->context, "samples", "Java allocation samples", aggregate.total.samples, LUMEN_UNIT_COUNT);
    host->summary(host->context, "bytes", "Java bytes allocated (sampled estimate)", aggregate.total.bytes,
                  LUMEN_UNIT_BYTES);
    host->summary(host->context, "objects", "Java objects allocated (sampled estimate)", aggregate.total.objects,
                  LUMEN_UNIT_COUNT);
    for (const uint32_t interval : aggregate.intervals)
      host->summary(host->context, "interval", "Sampling interval (mean bytes between samples)", interval,
                    LUMEN_UNIT_BYTES);
    std::vector<std::pair<std::string, ClassTotal>> classes(aggregate.classes.begin(), aggregate.classes.end());
    std::stable_sort(classes.begin(), classes.end(),
                     [](const auto& a, const auto& b) { return a.second.bytes > b.second.bytes; });
    if (host->row_limit != 0 && classes.size() > host->row_limit) classes.resize(host->row_limit);
    const lumen_view_column columns[] = {
        {"bytes", "Java Bytes Allocated (sampled estimate)", LUMEN_UNIT_BYTES},
        {"objects", "Java Objects Allocated (sampled estimate)", LUMEN_UNIT_COUNT},
        {"samples", "Samples", LUMEN_UNIT_COUNT},
    };
    host->table_begin(host->context, "Java allocations by class", columns, std::size(columns));
    for (const auto& [klass, total] : classes) {
      const double values[] = {std::round(total.bytes), std::round(total.objects), total.samples};
      host->table_row(host->context, klass.c_str(), values, LUMEN_NO_STACK);
    }
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

}  // namespace lumen::java
