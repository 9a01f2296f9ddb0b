#include "java_heap_views.h"

#include <lumen/analysis_support.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "java_samples.h"

namespace lumen::java {

namespace {

struct Totals {
  double objects = 0, bytes = 0, samples = 0;
  void add(const JavaSample& sample) {
    objects += sample.objects;
    bytes += sample.bytes;
    samples += 1;
  }
};

using Keep = std::function<bool(const JavaSample&)>;

const lumen_view_column kColumns[] = {
    {"objects", "Java Objects (sampled estimate)", LUMEN_UNIT_COUNT},
    {"bytes", "Java Bytes (sampled estimate)", LUMEN_UNIT_BYTES},
    {"samples", "Samples", LUMEN_UNIT_COUNT},
};

template <typename Key>
std::vector<std::pair<Key, Totals>> largest_first(const std::map<Key, Totals>& totals) {
  std::vector<std::pair<Key, Totals>> rows(totals.begin(), totals.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.bytes > b.second.bytes; });
  return rows;
}

// One row per allocation site (a Java stack and the class allocated there),
// the class as its name and the stack under it.
void site_table(const lumen_view_host& host, const JavaSamples& samples, const std::string& title, const Keep& keep) {
  std::map<size_t, Totals> by_site;
  for (const JavaSample& sample : samples.samples)
    if (keep(sample)) by_site[sample.site].add(sample);
  auto rows = largest_first(by_site);
  if (host.row_limit != 0 && rows.size() > host.row_limit) rows.resize(host.row_limit);
  host.table_begin(host.context, title.c_str(), kColumns, std::size(kColumns));
  std::vector<lumen_frame_name> frames;
  for (const auto& [site_index, totals] : rows) {
    const SampleSite& site = samples.sites[site_index];
    frames.clear();
    for (size_t f = 0; f + 1 < site.frames.size(); f += 2)
      frames.push_back({site.frames[f].c_str(), site.frames[f + 1].c_str()});
    const double values[] = {std::round(totals.objects), std::round(totals.bytes), totals.samples};
    host.table_row_frames(host.context, site.klass.c_str(), values, frames.data(), frames.size());
  }
}

void class_table(const lumen_view_host& host, const JavaSamples& samples, const std::string& title, const Keep& keep) {
  std::map<std::string, Totals> by_class;
  for (const JavaSample& sample : samples.samples)
    if (keep(sample)) by_class[samples.sites[sample.site].klass].add(sample);
  host.table_begin(host.context, title.c_str(), kColumns, std::size(kColumns));
  for (const auto& [klass, totals] : largest_first(by_class)) {
    const double values[] = {std::round(totals.objects), std::round(totals.bytes), totals.samples};
    host.table_row(host.context, klass.c_str(), values, LUMEN_NO_STACK);
  }
}

void intervals(const lumen_view_host& host, const JavaSamples& samples) {
  for (const uint32_t interval : samples.intervals)
    host.summary(host.context, "interval", "Sampling interval (mean bytes between samples)", interval,
                 LUMEN_UNIT_BYTES);
}

// Experiments that sampled nothing: a figure that says how to sample,
// and no table that would read as "nothing allocated".
bool nothing_sampled(const lumen_view_host& host, const JavaSamples& samples) {
  if (samples.recorded != 0) return false;
  host.summary(host.context, "samples", "Java allocation samples (none: collect -j heap samples Java allocations)", 0,
               LUMEN_UNIT_COUNT);
  return true;
}

// Runs a view on the samples: read once for -allocs and -leaks while the
// selection and view mode stay (lumen::kept_reading), their sites' frames
// resolved under them.
template <typename Run>
int guarded(const lumen_view_host& host, Run&& run, char* error, size_t error_size) {
  try {
    std::unique_ptr<JavaSamples> own;
    std::string problem;
    const JavaSamples* samples = kept_reading(&host, "allocation samples", own, problem, [&](JavaSamples& into) {
      std::string why;
      return read_java_samples(host, into, why) ? std::string() : why.empty() ? "no Java allocation record read" : why;
    });
    if (samples == nullptr) {
      std::snprintf(error, error_size, "%s", problem.c_str());
      return 1;
    }
    run(*samples);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

}  // namespace

int run_java_allocs_view(const lumen_view_host* host, char* error, size_t error_size) {
  return guarded(
      *host,
      [&](const JavaSamples& samples) {
        if (nothing_sampled(*host, samples)) return;
        Totals total;
        for (const JavaSample& sample : samples.samples) total.add(sample);
        host->summary(host->context, "samples", "Java allocation samples", total.samples, LUMEN_UNIT_COUNT);
        host->summary(host->context, "objects", "Java objects allocated (sampled estimate)", std::round(total.objects),
                      LUMEN_UNIT_COUNT);
        host->summary(host->context, "bytes", "Java bytes allocated (sampled estimate)", std::round(total.bytes),
                      LUMEN_UNIT_BYTES);
        intervals(*host, samples);
        const Keep all = [](const JavaSample&) { return true; };
        site_table(*host, samples, "Java allocations by allocation site and class (sampled estimates)", all);
        class_table(*host, samples, "Java allocations by class (sampled estimates)", all);
      },
      error, error_size);
}

int run_java_leaks_view(const lumen_view_host* host, char* error, size_t error_size) {
  return guarded(
      *host,
      [&](const JavaSamples& samples) {
        if (nothing_sampled(*host, samples)) return;
        Totals live, freed, unknown;
        for (const JavaSample& sample : samples.samples)
          (sample.fate == SampleFate::Live ? live : sample.fate == SampleFate::Freed ? freed : unknown).add(sample);
        host->summary(host->context, "samples", "Java allocation samples", samples.samples.size(), LUMEN_UNIT_COUNT);
        if (samples.experiments_with_census > 0) {
          host->summary(host->context, "live_samples",
                        "Sampled Java objects live at the JVM's end (they survived a full garbage collection)",
                        live.samples, LUMEN_UNIT_COUNT);
          host->summary(host->context, "objects", "Java objects live at the JVM's end (sampled estimate)",
                        std::round(live.objects), LUMEN_UNIT_COUNT);
          host->summary(host->context, "bytes", "Java bytes live at the JVM's end (sampled estimate)",
                        std::round(live.bytes), LUMEN_UNIT_BYTES);
          host->summary(host->context, "collected_samples", "Sampled Java objects garbage-collected by then",
                        freed.samples, LUMEN_UNIT_COUNT);
        }
        if (unknown.samples > 0)
          host->summary(host->context, "unknown_samples", "Sampled Java objects whose fate at the JVM's end is unknown",
                        unknown.samples, LUMEN_UNIT_COUNT);
        intervals(*host, samples);
        if (samples.experiments_with_census > 0) {
          const Keep is_live = [](const JavaSample& s) { return s.fate == SampleFate::Live; };
          site_table(*host, samples,
                     "Java objects live at the JVM's end by allocation site and class (sampled estimates)", is_live);
          class_table(*host, samples, "Java objects live at the JVM's end by class (sampled estimates)", is_live);
        }
        if (unknown.samples > 0) {
          std::string why;
          for (const std::string& line : samples.census_problems) why += (why.empty() ? "" : "; ") + line;
          if (why.empty()) why = "samples the agent could not track";
          const Keep is_unknown = [](const JavaSample& s) { return s.fate == SampleFate::Unknown; };
          site_table(*host, samples,
                     "Java objects are garbage-collected, so a Java leak is an object still reachable at the JVM's "
                     "end, and that is not known here (" + why +
                         "): these samples' allocation sites instead (sampled estimates of objects allocated, not "
                         "of leaks)",
                     is_unknown);
        }
      },
      error, error_size);
}

}  // namespace lumen::java
