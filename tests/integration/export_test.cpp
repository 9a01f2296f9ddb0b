// er_print -export on a real experiment (clock samples, sync waits and heap
// allocations of threads_target), each format read back by its own reader
// or parsed, and compared with er_print's own JSON of the same experiment.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

double number(const json& j) { return j.is_string() ? std::stod(j.get<std::string>()) : j.get<double>(); }
double value(const json& row, const std::string& key) { return row.at("values").at(key).get<double>(); }

double total_of(const json& view, const std::string& key) {
  for (const json& row : view.at("rows"))
    if (row.at("name") == "<Total>") return value(row, key);
  ADD_FAILURE() << "no <Total> row";
  return 0;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// JSON numbers carry 9 significant digits; nanosecond sums are exact.
void expect_same_seconds(double exported_ns, double shown_seconds, const std::string& what) {
  EXPECT_NEAR(exported_ns / 1e9, shown_seconds, 1e-8 * std::max(1.0, shown_seconds) + 1e-9) << what;
}

class ErPrintExport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    run_ = new Collection(collect(*dir_, {"-p", "on", "-s", "on", "-H", "on"}, "threads_target", {"0.5"}));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
  }
  static const fs::path& experiment() { return run_->experiment; }
  static fs::path out(const std::string& name) { return dir_->path() / name; }
  // er_print ARGS -export FORMAT FILE EXPERIMENT; fails the test on an error.
  static void export_to(const std::vector<std::string>& args, const std::string& format, const fs::path& file) {
    std::vector<std::string> argv = {(bin_dir() / "er_print").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"-export", format, file.string(), experiment().string()});
    const ProcessResult r = run_process(argv);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(fs::exists(file)) << r.err;
  }
  static std::map<std::string, double> functions(const std::string& metric) {
    std::map<std::string, double> rows;
    for (const auto& [name, row] : rows_by_name(er_print_json({"-metrics", "e." + metric + ":name", "-functions"}, experiment())))
      if (name != "<Total>") rows[name] = row.at("e." + metric).get<double>();
    return rows;
  }

  static TempDir* dir_;
  static Collection* run_;
};
TempDir* ErPrintExport::dir_ = nullptr;
Collection* ErPrintExport::run_ = nullptr;

// The folded lines summed per leaf are each function's exclusive metric.
std::map<std::string, double> folded_leaves(const fs::path& file, double* total) {
  std::map<std::string, double> leaves;
  std::istringstream in(read_text(file));
  std::string line;
  *total = 0;
  while (std::getline(in, line)) {
    const size_t space = line.rfind(' ');
    const std::string stack = line.substr(0, space);
    const size_t semicolon = stack.rfind(';');
    const double v = std::stod(line.substr(space + 1));
    leaves[semicolon == std::string::npos ? stack : stack.substr(semicolon + 1)] += v;
    *total += v;
  }
  return leaves;
}

TEST_F(ErPrintExport, FoldedTotalsPerLeafAreTheExclusiveMetric) {
  for (const std::string metric : {"totalcpu", "sync"}) {
    export_to({"-metrics", "e." + metric + ":name"}, "folded", out(metric + ".folded"));
    double total = 0;
    const auto leaves = folded_leaves(out(metric + ".folded"), &total);
    const auto shown = functions(metric);
    ASSERT_FALSE(leaves.empty()) << metric;
    for (const auto& [name, seconds] : shown) {
      if (seconds == 0) continue;
      ASSERT_TRUE(leaves.count(name)) << metric << " " << name;
      expect_same_seconds(leaves.at(name), seconds, metric + " " + name);
    }
    for (const auto& [leaf, ns] : leaves) EXPECT_TRUE(shown.count(leaf)) << leaf;
  }
  // Threads selected the way the views select them: the thread's total.
  const json threads = er_print_json({"-metrics", "e.totalcpu:name", "-thread_list"}, experiment());
  for (const json& row : threads.at("rows")) {
    const std::string thread = row.at("thread").is_string() ? row.at("thread").get<std::string>() : row.at("thread").dump();
    const fs::path file = out("thread" + thread + ".folded");
    export_to({"-metrics", "e.totalcpu:name", "-thread_select", thread}, "folded", file);
    double total = 0;
    folded_leaves(file, &total);
    expect_same_seconds(total, value(row, "e.totalcpu"), "thread " + thread);
  }
}

// The build id `readelf -n` finds in `file`, "" when none.
std::string readelf_build_id(const fs::path& file) {
  const ProcessResult r = run_process({"readelf", "-n", file.string()});
  const size_t at = r.out.find("Build ID: ");
  if (at == std::string::npos) return "";
  return r.out.substr(at + 10, r.out.find_first_of(" \n", at + 10) - at - 10);
}

// Checks that every location of a function of a load object in the pprof
// export of `experiment` (`metrics` exported) carries that object's mapping, named by the
// object's path with the build id the file holds (the vDSO's: the
// experiment's copy, vdso.so), and that functions of no object (artificial
// ones) have none, as go tool pprof -raw reads the profile. Returns the
// objects checked.
std::set<std::string> expect_locations_mapped(const fs::path& experiment, const std::string& metrics,
                                              const fs::path& work) {
  const fs::path file = work / (experiment.stem().string() + ".pb.gz");
  const ProcessResult exported = run_process(
      {(bin_dir() / "er_print").string(), "-metrics", metrics, "-export", "pprof", file.string(), experiment.string()});
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  const ProcessResult raw = run_process({"go", "tool", "pprof", "-raw", file.string()},
                                        {{"HOME", work.string()}, {"GOCACHE", (work / "gocache").string()}}, "", 120);
  EXPECT_EQ(raw.exit_code, 0) << raw.err;
  // "Locations" lines: "  N: 0xADDR [M=K] FUNCTION FILE:LINE s=START";
  // "Mappings" lines: "K: 0xSTART/0xLIMIT/0xOFFSET FILE [BUILDID] [FN]...".
  std::map<std::string, std::string> mapping_of;  // function -> mapping id ("" for none)
  std::map<std::string, std::pair<std::string, std::string>> mappings;  // id -> (file, build id)
  std::istringstream in(raw.out);
  std::string section;
  for (std::string line; std::getline(in, line);) {
    if (line == "Locations" || line == "Mappings") {
      section = line;
      continue;
    }
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (section == "Locations" && w.size() >= 4 && w[0].back() == ':' && w[1].rfind("0x", 0) == 0) {
      const bool mapped = w[2].rfind("M=", 0) == 0;
      std::string name;
      for (size_t i = mapped ? 3 : 2; i + 2 < w.size(); ++i) name += (name.empty() ? "" : " ") + w[i];
      mapping_of[name] = mapped ? w[2].substr(2) : "";
    } else if (section == "Mappings" && w.size() >= 3 && w[0].back() == ':') {
      mappings[w[0].substr(0, w[0].size() - 1)] = {w[2], w.size() > 3 && w[3][0] != '[' ? w[3] : ""};
    }
  }
  std::set<std::string> objects;
  size_t checked = 0;
  const json view = er_print_json({"-metrics", metrics, "-functions"}, experiment);
  for (const json& row : view.at("rows")) {
    const std::string name = row.at("name"), object = row.at("load_object");
    if (!mapping_of.count(name)) continue;  // on no stack with a value exported
    ++checked;
    SCOPED_TRACE(name + " of " + object);
    if (object.empty() || object == "<Unknown>") {
      EXPECT_EQ(mapping_of.at(name), "");
      continue;
    }
    EXPECT_TRUE(mappings.count(mapping_of.at(name))) << raw.out;
    if (!mappings.count(mapping_of.at(name))) continue;
    const auto& [path, build_id] = mappings.at(mapping_of.at(name));
    EXPECT_EQ(fs::path(path).filename().string(), object);
    const bool vdso = object == "linux-vdso.so.1";  // no file, a copy in the experiment
    if (!vdso && path.find('/') == std::string::npos) {  // described code, no file (<Kernel>, a module): no build-id
      EXPECT_EQ(build_id, "");
      objects.insert(object);
      continue;
    }
    EXPECT_EQ(build_id, readelf_build_id(vdso ? experiment / "vdso.so" : fs::path(path)));
    EXPECT_NE(build_id, "");
    objects.insert(object);
  }
  EXPECT_GT(checked, 5u) << raw.out;
  return objects;
}

TEST_F(ErPrintExport, PprofLocationsCarryTheirLoadObjectsMapping) {
  if (run_process({"sh", "-c", "command -v go"}).exit_code != 0)
    GTEST_SKIP() << "go (Debian golang-go) is not installed: the pprof export is not read back";
  const std::set<std::string> objects =
      expect_locations_mapped(experiment(), "e.totalcpu:e.sync:e.heapallocbytes:name", dir_->path());
  EXPECT_TRUE(objects.count("threads_target") && objects.count("libc.so.6"));
  // Time in the vDSO, which has a build id though its path names no file.
  TempDir dir;
  const Collection vdso = collect(dir, {"-p", "on"}, "vdso_target");
  ASSERT_EQ(vdso.run.exit_code, 0) << vdso.run.err;
  EXPECT_TRUE(expect_locations_mapped(vdso.experiment, "e.totalcpu:name", dir.path()).count("linux-vdso.so.1"));
}

TEST_F(ErPrintExport, PprofReadsBackWithTheSameTotals) {
  const ProcessResult which = run_process({"sh", "-c", "command -v go"});
  if (which.exit_code != 0) GTEST_SKIP() << "go (Debian golang-go) is not installed: the pprof export is not read back";
  const fs::path file = out("profile.pb.gz");
  export_to({"-metrics", "e.totalcpu:e.sync:e.heapallocbytes:name"}, "pprof", file);
  const std::map<std::string, std::string> env = {{"HOME", dir_->path().string()},
                                                  {"GOCACHE", (dir_->path() / "gocache").string()}};
  const ProcessResult raw = run_process({"go", "tool", "pprof", "-raw", file.string()}, env, "", 120);
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  // -raw: "PeriodType: ...", "Samples:", a header naming each sample type
  // ("totalcpu/nanoseconds sync/nanoseconds ..."), then per sample its values
  // before ": " and its location ids.
  std::istringstream in(raw.out);
  std::string line;
  bool in_samples = false, header_seen = false;
  std::vector<double> sums(3, 0);
  while (std::getline(in, line)) {
    if (line.rfind("Samples:", 0) == 0) {
      in_samples = true;
      continue;
    }
    if (!in_samples) continue;
    if (line.rfind("Locations", 0) == 0) break;
    if (!header_seen) {
      EXPECT_NE(line.find("totalcpu/nanoseconds"), std::string::npos) << line;
      EXPECT_NE(line.find("sync/nanoseconds"), std::string::npos) << line;
      EXPECT_NE(line.find("heapallocbytes/bytes"), std::string::npos) << line;
      header_seen = true;
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream values(line.substr(0, colon));
    double v = 0;
    for (size_t i = 0; i < 3 && values >> v; ++i) sums[i] += v;
  }
  ASSERT_TRUE(header_seen) << raw.out;
  const json shown = er_print_json({"-metrics", "e.totalcpu:e.sync:e.heapallocbytes:name", "-functions"}, experiment());
  expect_same_seconds(sums[0], total_of(shown, "e.totalcpu"), "totalcpu");
  expect_same_seconds(sums[1], total_of(shown, "e.sync"), "sync");
  EXPECT_DOUBLE_EQ(sums[2], total_of(shown, "e.heapallocbytes"));

  // -top: the functions pprof ranks first by flat user time, with the value er_print shows.
  const ProcessResult top = run_process({"go", "tool", "pprof", "-top", "-sample_index=totalcpu", "-unit=ns", file.string()}, env, "", 120);
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const auto user = functions("totalcpu");
  std::istringstream rows(top.out);
  size_t checked = 0;
  while (std::getline(rows, line)) {
    std::istringstream words(line);
    std::string flat, flat_share, sum_share, cum, cum_share, name;
    if (!(words >> flat >> flat_share >> sum_share >> cum >> cum_share)) continue;
    std::getline(words, name);
    name.erase(0, name.find_first_not_of(' '));
    if (flat.size() < 3 || flat.substr(flat.size() - 2) != "ns" || !user.count(name)) continue;
    expect_same_seconds(std::stod(flat), user.at(name), "pprof -top " + name);
    ++checked;
  }
  EXPECT_GE(checked, 4u) << top.out;  // spin_main, spin_a, spin_b, spin_c at least
  // Labels and build-ids are in the file.
  EXPECT_NE(raw.out.find("thread:[Thread "), std::string::npos) << raw.out.substr(0, 2000);
  EXPECT_NE(raw.out.find("threads_target"), std::string::npos);
}

TEST_F(ErPrintExport, ChromeTraceHasEachThreadsEvents) {
  const fs::path file = out("trace.json");
  export_to({"-metrics", "e.totalcpu:e.sync:e.heapallocbytes:name"}, "chrome", file);
  const json trace = json::parse(read_text(file));
  std::map<uint64_t, uint64_t> events_of_tid;
  std::map<uint64_t, double> sync_of_tid;
  std::set<uint64_t> named;
  size_t counters = 0;
  for (const json& e : trace.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "M" && e.at("name") == "thread_name") named.insert(e.at("tid").get<uint64_t>());
    if (ph == "C" && e.at("name") == "Heap bytes in use") ++counters;
    if (ph != "X" && ph != "i") continue;
    if (e.at("args").value("timeline", "") == "span") continue;  // drawn beside the events (none here)
    ++events_of_tid[e.at("tid").get<uint64_t>()];
    if (ph == "X") sync_of_tid[e.at("tid").get<uint64_t>()] += e.at("dur").get<double>() * 1000;
  }
  const json threads = er_print_json({"-metrics", "e.totalcpu:e.sync:name", "-thread_list"}, experiment());
  // The collector's own threads (the off-CPU sampler) are listed without events.
  size_t with_events = 0;
  for (const json& row : threads.at("rows")) with_events += number(row.at("events")) > 0 ? 1 : 0;
  ASSERT_EQ(with_events, 4u);
  for (const json& row : threads.at("rows")) {
    if (number(row.at("events")) == 0) continue;
    const auto tid = static_cast<uint64_t>(number(row.at("tid")));
    EXPECT_EQ(events_of_tid[tid], static_cast<uint64_t>(number(row.at("events")))) << "thread " << tid;
    EXPECT_TRUE(named.count(tid)) << tid;
    // Durations are written in microseconds with three decimals: 1 ns per call.
    EXPECT_NEAR(sync_of_tid[tid] / 1e9, value(row, "e.sync"), 1e-8 + 1e-6 * value(row, "e.sync")) << tid;
  }
  EXPECT_EQ(events_of_tid.size(), 4u);
  EXPECT_GT(counters, 0u) << "heap bytes in use as a counter";
}

TEST_F(ErPrintExport, SpeedscopeProfilesAddUpToTheTotals) {
  const fs::path file = out("profile.speedscope.json");
  export_to({"-metrics", "e.totalcpu:e.sync:name"}, "speedscope", file);
  const json doc = json::parse(read_text(file));
  EXPECT_EQ(doc.at("$schema"), "https://www.speedscope.app/file-format-schema.json");
  const size_t frames = doc.at("shared").at("frames").size();
  double sampled = 0;
  size_t evented = 0, calls = 0;
  for (const json& profile : doc.at("profiles")) {
    if (profile.at("type") == "sampled") {
      EXPECT_EQ(profile.at("unit"), "nanoseconds");
      double sum = 0;
      for (const json& w : profile.at("weights")) sum += w.get<double>();
      EXPECT_EQ(sum, profile.at("endValue").get<double>());
      EXPECT_EQ(profile.at("samples").size(), profile.at("weights").size());
      for (const json& sample : profile.at("samples"))
        for (const json& f : sample) EXPECT_LT(f.get<size_t>(), frames);
      sampled += sum;
    } else {
      ++evented;
      // Every frame opened is closed, innermost first.
      std::vector<size_t> open;
      double last = 0;
      for (const json& e : profile.at("events")) {
        EXPECT_GE(e.at("at").get<double>(), last);
        last = e.at("at").get<double>();
        if (e.at("type") == "O") {
          if (open.empty()) ++calls;
          open.push_back(e.at("frame"));
        } else {
          ASSERT_FALSE(open.empty());
          EXPECT_EQ(open.back(), e.at("frame").get<size_t>());
          open.pop_back();
        }
      }
      EXPECT_TRUE(open.empty());
    }
  }
  const json shown = er_print_json({"-metrics", "e.totalcpu:e.syncn:name", "-functions"}, experiment());
  expect_same_seconds(sampled, total_of(shown, "e.totalcpu"), "totalcpu");
  EXPECT_GT(evented, 0u);
  EXPECT_EQ(static_cast<double>(calls), total_of(shown, "e.syncn"));
}

TEST_F(ErPrintExport, BadFormatIsRefused) {
  const ProcessResult r = run_process({(bin_dir() / "er_print").string(), "-export", "svg", out("x").string(),
                                       experiment().string()});
  EXPECT_NE(r.err.find("unknown export format 'svg'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out("x")));
}

}  // namespace
}  // namespace lumen::test
