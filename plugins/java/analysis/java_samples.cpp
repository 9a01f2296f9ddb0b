#include "java_samples.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "../java_record.h"
#include "java_allocations.h"

namespace lumen::java {

namespace {

// What one part of a data file holds, kept until every part is read.
struct Part {
  const lumen_view_host* host = nullptr;
  void* context = nullptr;
  size_t experiment = 0;
  struct Raw {
    uint64_t tag, stack, time;
    uint32_t epoch, klass, interval;
    uint64_t size;
    bool selected;
  };
  std::vector<Raw> raws;
  std::vector<std::string> classes;
  std::unordered_map<std::string, uint32_t> class_index;
  std::vector<uint64_t> live;
  bool has_census = false;
  JavaCensus census{};
};

struct Reading {
  const lumen_view_host* host;
  std::vector<std::unique_ptr<Part>> parts;
};

void* begin_part(void* arg, const lumen_record_part* part) {
  auto* reading = static_cast<Reading*>(arg);
  auto state = std::make_unique<Part>();
  state->host = reading->host;
  state->context = part->context;
  state->experiment = part->experiment;
  reading->parts.push_back(std::move(state));
  return reading->parts.back().get();
}

void visit(void* arg, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto& part = *static_cast<Part*>(arg);
  const lumen_view_host& host = *part.host;
  if (kind == kAllocationRecord || kind == kTrackedAllocationRecord) {
    JavaAllocation sample;
    std::string klass;
    uint64_t tag = 0;
    if (!read_allocation_record(kind, payload, bytes, sample, klass, tag)) {
      host.record_failed(part.context, "JAVA_CLASSES allocation record is not one");
      return;
    }
    const auto [it, added] = part.class_index.try_emplace(klass, static_cast<uint32_t>(part.classes.size()));
    if (added) part.classes.push_back(klass);
    part.raws.push_back({tag, sample.stack_id, sample.time_ns, host.map_epoch(part.context, sample.time_ns), it->second,
                         sample.interval, sample.size,
                         host.selected(part.context, sample.time_ns, sample.thread_id) != 0});
  } else if (kind == kLiveObjectsRecord) {
    JavaLiveObjects live;
    if (bytes < sizeof live || (std::memcpy(&live, payload, sizeof live), sizeof live + live.count * 8ull != bytes)) {
      host.record_failed(part.context, "JAVA_CLASSES live-objects record is not one");
      return;
    }
    const size_t first = part.live.size();
    part.live.resize(first + live.count);
    std::memcpy(part.live.data() + first, static_cast<const char*>(payload) + sizeof live, live.count * 8ull);
  } else if (kind == kCensusRecord) {
    if (bytes != sizeof(JavaCensus)) {
      host.record_failed(part.context, "JAVA_CLASSES census record is not one");
      return;
    }
    std::memcpy(&part.census, payload, sizeof part.census);
    part.has_census = true;
  }
}

// One experiment's census, from all its parts.
struct Census {
  bool recorded = false;
  JavaCensus record{};
  std::unordered_set<uint64_t> live;
  uint64_t live_read = 0;
  bool has_samples = false;
  std::string problem;  // why it does not tell the samples' fate; empty when sound
};

std::string census_problem(size_t experiment, const Census& census) {
  const std::string which = "experiment " + std::to_string(experiment + 1) + ": ";
  if (!census.recorded)
    return which + "no census of live objects at the JVM's end (the JVM did not end normally, being killed or "
                   "crashing, or could not tag objects; the experiment's log says which)";
  if (census.record.collections == 0)
    return which + "the JVM ran no garbage collection when its census asked for one (a collector that never "
                   "collects, such as Epsilon), so unreachable objects cannot be told from live ones";
  if (census.live_read != census.record.live)
    return which + "the census is incomplete (" + std::to_string(census.live_read) + " of " +
           std::to_string(census.record.live) + " live objects' records read)";
  return "";
}

}  // namespace

bool read_java_samples(const lumen_view_host& host, JavaSamples& samples, std::string& problem) {
  if (host.for_each_record_in_parts == nullptr) {
    problem = "this er_print cannot read records in parts";
    return false;
  }
  Reading reading{&host, {}};
  host.for_each_record_in_parts(host.context, begin_part, visit, &reading);

  std::map<size_t, Census> censuses;
  for (const auto& part : reading.parts) {
    Census& census = censuses[part->experiment];
    if (part->has_census) {
      census.recorded = true;
      census.record = part->census;
    }
    census.live.insert(part->live.begin(), part->live.end());
    census.live_read += part->live.size();
    census.has_samples |= !part->raws.empty();
    samples.recorded += part->raws.size();
  }
  for (auto& [experiment, census] : censuses) {
    census.problem = census_problem(experiment, census);
    if (!census.problem.empty() && census.has_samples) {
      samples.experiments_without_census += 1;
      samples.census_problems.push_back(census.problem);
    } else if (census.problem.empty()) {
      samples.experiments_with_census += 1;
    }
  }

  // Each (experiment, stack, map state) resolved once; sites by their frames and class.
  std::map<std::tuple<size_t, uint64_t, uint32_t>, std::vector<std::string>> resolved;
  std::map<SampleSite, size_t> site_index;
  std::set<uint32_t> intervals;
  std::vector<lumen_frame_name> buffer(256);
  for (const auto& part : reading.parts) {
    const Census& census = censuses[part->experiment];
    for (const Part::Raw& raw : part->raws) {
      if (!raw.selected) continue;
      auto [frames, added] = resolved.try_emplace({part->experiment, raw.stack, raw.epoch});
      if (added && raw.stack != LUMEN_NO_STACK) {
        const size_t count = host.stack_frames_at(part->context, raw.stack, raw.time, buffer.data(), buffer.size());
        for (size_t f = 0; f < count; ++f) {
          frames->second.push_back(buffer[f].function ? buffer[f].function : "");
          frames->second.push_back(buffer[f].load_object ? buffer[f].load_object : "");
        }
      }
      SampleSite site{frames->second, part->classes[raw.klass]};
      const auto [at, new_site] = site_index.try_emplace(site, samples.sites.size());
      if (new_site) samples.sites.push_back(std::move(site));
      SampleFate fate = SampleFate::Unknown;
      if (raw.tag != 0 && census.problem.empty() && raw.time < census.record.time_ns)
        fate = census.live.count(raw.tag) ? SampleFate::Live : SampleFate::Freed;
      const AllocationEstimate estimate = estimate_allocation(raw.size, raw.interval);
      samples.samples.push_back({at->second, estimate.objects, estimate.bytes, fate});
      intervals.insert(raw.interval);
    }
  }
  samples.intervals.assign(intervals.begin(), intervals.end());
  return true;
}

}  // namespace lumen::java
