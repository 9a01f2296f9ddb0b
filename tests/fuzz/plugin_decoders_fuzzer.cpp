// libFuzzer target over the analysis halves of every plugin built in this
// tree, driven through their descriptors (lumen/analysis_plugin.h) as
// er_print drives them. The input (decoder_input.h) names a plugin and
// carries its options, the experiment's facts and a stream of records; the
// plugin is configured, its decoder reads the records in one pass and, when
// it may, in parts merged in file order (the two must count the same events
// and values), then every view it adds runs over them, its process figures
// are read and its fold_stack shapes a stack in each view mode.
//
// The halves are the plugins' own sources built again with the sanitizers
// (fuzz-plugins/NAME/analysis.so, or under LUMEN_FUZZ_PLUGIN_DIR), loaded
// with dlopen before fuzzing starts; LUMEN_FUZZ_PLUGIN=NAME loads that one
// only. A decoder may refuse a record
// only by returning an error that says why; a crash, a sanitizer report, a
// hang (-timeout) or what er_print could not use (a NULL name, values
// missing, an empty error) is a bug.
#include <dlfcn.h>
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checked_sink.h"
#include "checked_view_host.h"
#include "decoder_input.h"

using namespace lumen::fuzz;

namespace {

struct Plugin {
  std::string name;
  const lumen_analysis_descriptor* descriptor;
};

std::vector<Plugin>& plugins() {
  static auto* loaded = new std::vector<Plugin>;
  return *loaded;
}

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "decoder fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

// An error er_print would print: terminated within its buffer, and saying
// something.
void check_error(const char* error, size_t size, const char* what) {
  if (std::memchr(error, 0, size) == nullptr) fail(what, "error message not terminated");
  if (error[0] == '\0') fail(what, "failed without saying why");
}

void check_metrics(const lumen_configuration& c) {
  if (c.metric_count > 0 && c.metrics == nullptr) fail("configure", "metrics missing");
  for (size_t i = 0; i < c.metric_count; ++i)
    read_string(c.metrics[i].keyword, false, "metric keyword"), read_string(c.metrics[i].title, false, "metric title");
  for (size_t i = 0; i < c.derived_metric_count; ++i) read_string(c.derived_metrics[i].keyword, false, "derived metric");
}

// Decodes records [first, end) as er_print's decode() does: the state is
// ended (with `sink` when all went well), or handed back in `kept`.
std::optional<EventTotals> decode_records(const lumen_analysis_descriptor& d, void* context, const DecoderInput& input,
                                          size_t first, size_t end, CheckedSink& sink, void** kept = nullptr) {
  void* state = d.decoder_begin ? d.decoder_begin(context) : context;
  char error[256] = "";
  for (size_t i = first; i < end; ++i) {
    const InputRecord& record = input.records[i];
    const PayloadCopy payload(record);
    sink.set_record_thread(record.thread_id);
    if (d.decode(state, record.kind, payload.data(), record.payload_bytes, sink.sink(), error, sizeof error) != 0) {
      check_error(error, sizeof error, "decode");
      if (d.decoder_end) d.decoder_end(state, nullptr, error, sizeof error);
      return std::nullopt;
    }
  }
  if (kept != nullptr) {
    *kept = state;
    return sink.totals();
  }
  if (d.decoder_end && d.decoder_end(state, sink.sink(), error, sizeof error) != 0) {
    check_error(error, sizeof error, "decoder_end");
    return std::nullopt;
  }
  return sink.totals();
}

// Parts as er_print makes them are runs of whole blocks; a block may end
// after any record, so any record may start a part.
std::vector<size_t> part_starts(size_t records) {
  std::vector<size_t> starts{0};
  for (size_t cut : {records / 3, 2 * records / 3})
    if (cut > starts.back()) starts.push_back(cut);
  return starts;
}

// Each part decoded apart; with decoder_merge, the parts' states merged in
// file order and ended once.
std::optional<EventTotals> decode_in_parts(const lumen_analysis_descriptor& d, void* context,
                                           const DecoderInput& input, const std::vector<size_t>& starts,
                                           size_t metric_count) {
  CheckedSink sink(metric_count, false);
  std::vector<void*> states;
  char error[256] = "";
  const auto end_all = [&](size_t from) {
    for (size_t i = from; i < states.size(); ++i)
      if (d.decoder_end) d.decoder_end(states[i], nullptr, error, sizeof error);
  };
  for (size_t p = 0; p < starts.size(); ++p) {
    const size_t end = p + 1 < starts.size() ? starts[p + 1] : input.records.size();
    void* kept = nullptr;
    if (!decode_records(d, context, input, starts[p], end, sink, d.decoder_merge ? &kept : nullptr)) {
      end_all(0);
      return std::nullopt;
    }
    if (d.decoder_merge) states.push_back(kept);
  }
  if (!d.decoder_merge) return sink.totals();
  for (size_t i = 1; i < states.size(); ++i) {
    if (d.decoder_merge(states[0], states[i], error, sizeof error) != 0) {
      check_error(error, sizeof error, "decoder_merge");
      end_all(0);
      return std::nullopt;
    }
    if (d.decoder_end) d.decoder_end(states[i], nullptr, error, sizeof error);
    states[i] = nullptr;
  }
  if (d.decoder_end && d.decoder_end(states[0], sink.sink(), error, sizeof error) != 0) {
    check_error(error, sizeof error, "decoder_end");
    return std::nullopt;
  }
  return sink.totals();
}

std::string describe(const EventTotals& totals) {
  std::string text = std::to_string(totals.events) + " events, values";
  for (uint64_t sum : totals.sums) text += " " + std::to_string(static_cast<int64_t>(sum));
  return text;
}

void read_process_figures(const lumen_analysis_descriptor& d, const DecoderInput& input) {
  if (d.process_figures == nullptr) return;
  for (const InputRecord& record : input.records) {
    const PayloadCopy payload(record);
    d.process_figures(
        record.kind, payload.data(), record.payload_bytes,
        [](void*, const char* metric, const char* title, double) {
          read_string(metric, true, "figure metric"), read_string(title, true, "figure title");
        },
        nullptr);
  }
}

void fold_in_every_mode(const lumen_analysis_descriptor& d, const DecoderInput& input) {
  if (d.fold_stack == nullptr || input.frames.empty()) return;
  std::vector<lumen_view_frame> frames;
  for (const InputFrame& f : input.frames) frames.push_back({f.pc, f.function.c_str(), f.object.c_str()});
  for (const lumen_view_mode mode : {LUMEN_VIEW_USER, LUMEN_VIEW_EXPERT, LUMEN_VIEW_MACHINE}) {
    // Room for count + 1 frames, and not one more.
    const auto out = std::make_unique<lumen_folded_frame[]>(frames.size() + 1);
    const size_t n = d.fold_stack(mode, frames.data(), frames.size(), out.get());
    if (n > frames.size() + 1) fail("fold_stack", "wrote " + std::to_string(n) + " frames");
    for (size_t i = 0; i < n; ++i)
      if (out[i].frame < 0) read_string(out[i].artificial, true, "folded artificial function");
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* only = std::getenv("LUMEN_FUZZ_PLUGIN");
  const char* directory = std::getenv("LUMEN_FUZZ_PLUGIN_DIR");
  if (directory == nullptr) directory = LUMEN_FUZZ_PLUGIN_DIR;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (only != nullptr && name != only) continue;
    const std::string path = (entry.path() / "analysis.so").string();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) fail("dlopen", dlerror());
    auto factory = reinterpret_cast<lumen_analysis_factory>(dlsym(handle, LUMEN_ANALYSIS_FACTORY));
    if (factory == nullptr) fail("no factory", path);
    plugins().push_back({name, factory()});
  }
  if (plugins().empty()) fail("no plugin loaded from", directory);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DecoderInput input;
  if (!parse_decoder_input(data, size, input)) return -1;
  const Plugin* plugin = nullptr;
  for (const Plugin& p : plugins())
    if (p.name == input.plugin) plugin = &p;
  if (plugin == nullptr) return -1;
  const lumen_analysis_descriptor& d = *plugin->descriptor;

  // The configuration er_print builds from the descriptor and configure.
  lumen_configuration configuration{sizeof(lumen_configuration), d.metrics, d.metric_count, d.derived_metrics,
                                    d.derived_metric_count, nullptr};
  if (d.configure != nullptr) {
    std::vector<lumen_option_value> options;
    for (const auto& [key, value] : input.options) options.push_back({key.c_str(), value.c_str()});
    std::vector<std::string> recorded_names;
    for (std::string list = input.fact("recorded", d.name), name; !list.empty();) {
      const size_t comma = list.find(',');
      recorded_names.push_back(list.substr(0, comma));
      list = comma == std::string::npos ? "" : list.substr(comma + 1);
    }
    std::vector<const char*> recorded;
    for (const std::string& name : recorded_names) recorded.push_back(name.c_str());
    const lumen_experiment_facts facts{sizeof(lumen_experiment_facts),
                                       "test.1.er",
                                       std::strtod(input.fact("clock_mhz", "0"), nullptr),
                                       options.data(),
                                       options.size(),
                                       recorded.data(),
                                       recorded.size()};
    char error[512] = "";
    if (d.configure(&facts, &configuration, error, sizeof error) != 0) {
      check_error(error, sizeof error, "configure");
      return 0;
    }
  }
  check_metrics(configuration);

  const std::vector<size_t> starts = part_starts(input.records.size());
  CheckedSink one_pass_sink(configuration.metric_count, true);
  const auto one_pass =
      decode_records(d, configuration.decoder_context, input, 0, input.records.size(), one_pass_sink);
  if (d.decodes_in_parts) {
    const auto parts = decode_in_parts(d, configuration.decoder_context, input, starts, configuration.metric_count);
    if (one_pass && parts && !(*one_pass == *parts))
      fail(d.name, "one pass read " + describe(*one_pass) + ", parts " + describe(*parts));
  }
  read_process_figures(d, input);
  fold_in_every_mode(d, input);
  for (size_t i = 0; i < d.view_count; ++i) run_checked_view(d.views[i], input, starts);
  return 0;
}
