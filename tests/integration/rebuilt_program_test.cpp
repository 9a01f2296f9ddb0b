// A program rebuilt after it was recorded never lends its functions' names
// to the recorded code. A C program (or a library it calls) is compiled
// here, recorded, then rebuilt in place from a source with a function
// inserted before hot_loop, so the new extra_fn lies where hot_loop was:
// with collect's default archive hot_loop keeps its time (the program's
// own measure of it) and extra_fn has none; without the archive the code
// is <unknown>, said so, never extra_fn.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Several hundred bytes of code: hot_loop's old instructions all fall in it.
constexpr const char* kExtraFunction = R"(
__attribute__((noinline)) double extra_fn(double x) {
  __asm__ volatile(".fill 2048, 1, 0x90");
  return x * 2;
}
)";

constexpr const char* kHotLoop = R"(
#include <time.h>
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) double hot_loop(double seconds) {
  volatile double s = 0;
  const double end = cpu_now() + seconds;
  while (cpu_now() < end)
    for (int i = 0; i < 200000; ++i) s += i;
  return s;
}
)";

// main measures hot_loop's CPU time and writes it to argv[1].
constexpr const char* kMain = R"(
#include <stdio.h>
#include <time.h>
double hot_loop(double seconds);
static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}
int main(int argc, char** argv) {
  const double begin = cpu();
  const double s = hot_loop(0.6);
  const double spent = cpu() - begin;
  FILE* out = fopen(argv[1], "w");
  fprintf(out, "%.6f\n", spent);
  fclose(out);
  return s < 0;
}
)";

constexpr double kInterval = 0.010;  // clock profiling's default

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

void compile(const std::vector<std::string>& args) {
  std::vector<std::string> argv{LUMEN_TEST_CC, "-O1", "-g"};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult cc = run_process(argv);
  ASSERT_EQ(cc.exit_code, 0) << cc.err;
}

// hot_loop in the program itself: hot.c holds it (after extra_fn when
// `extra`), main.c calls it.
// `build_id`: linked with a GNU build-id (the toolchain's default), or none.
void build_program(const fs::path& dir, bool extra, bool build_id = true) {
  write_file(dir / "hot.c", std::string(extra ? kExtraFunction : "") + kHotLoop);
  write_file(dir / "main.c", kMain);
  compile({(dir / "hot.c").string(), (dir / "main.c").string(), "-o", (dir / "prog").string(),
           build_id ? "-Wl,--build-id" : "-Wl,--build-id=none"});
}

// hot_loop in libhot.so, which prog finds beside itself.
void build_library(const fs::path& dir, bool extra) {
  write_file(dir / "hot.c", std::string(extra ? kExtraFunction : "") + kHotLoop);
  compile({"-shared", "-fPIC", (dir / "hot.c").string(), "-o", (dir / "libhot.so").string()});
}

void build_program_with_library(const fs::path& dir) {
  build_library(dir, false);
  write_file(dir / "main.c", kMain);
  compile({(dir / "main.c").string(), "-o", (dir / "prog").string(), "-L" + dir.string(), "-lhot",
           "-Wl,-rpath," + dir.string()});
}

struct Recorded {
  fs::path experiment;
  double hot_loop_seconds = 0;  // as the program measured it
};

Recorded record(const fs::path& dir, const std::vector<std::string>& flags) {
  std::vector<std::string> argv{(bin_dir() / "collect").string(), "-o", "run.er", "-d", dir.string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {(dir / "prog").string(), (dir / "truth").string()});
  const ProcessResult run = run_process(argv);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::ifstream truth(dir / "truth");
  Recorded r{dir / "run.er", 0};
  truth >> r.hot_loop_seconds;
  EXPECT_GT(r.hot_loop_seconds, 0.5);
  return r;
}

// -functions' rows by name (inclusive CPU time), and what er_print said.
struct Functions {
  std::map<std::string, json> rows;
  std::string err;
  double inclusive(const std::string& name) const {
    const auto row = rows.find(name);
    return row == rows.end() ? 0.0 : row->second.at("i.totalcpu").get<double>();
  }
};

Functions functions(const fs::path& experiment) {
  const ProcessResult r = run_process({(bin_dir() / "er_print").string(), "--format=json", "-metrics",
                                       "i.totalcpu:name", "-functions", experiment.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return {rows_by_name(json::parse(r.out)), r.err};
}

void expect_hot_loop_named(const Functions& f, const Recorded& r) {
  EXPECT_NEAR(f.inclusive("hot_loop"), r.hot_loop_seconds, sampling_tolerance(r.hot_loop_seconds, kInterval)) << f.err;
  EXPECT_EQ(f.rows.count("extra_fn"), 0u) << "the recorded code is charged to a function it never ran";
}

TEST(RebuiltProgram, TheDefaultArchiveNamesTheRecordedCodeAfterARebuildInPlace) {
  TempDir dir;
  build_program(dir.path(), false);
  const Recorded r = record(dir.path(), {});  // -A on is the default
  build_program(dir.path(), true);
  const Functions f = functions(r.experiment);
  expect_hot_loop_named(f, r);
  EXPECT_EQ(f.err.find("changed since"), std::string::npos) << f.err;

  // hot.c now has extra_fn before hot_loop: its lines are not the code's.
  const json source = er_print_json({"-source", "hot_loop"}, r.experiment);
  bool said = false;
  for (const json& row : source.at("rows"))
    if (row.at("kind") == "file")
      said = said || row.at("name").get<std::string>().find("(changed since the program was built: modified ") !=
                         std::string::npos;
  EXPECT_TRUE(said) << source.dump();
}

TEST(RebuiltProgram, WithoutTheArchiveARebuiltProgramsCodeIsUnknownNeverAnotherFunction) {
  TempDir dir;
  build_program(dir.path(), false);
  const Recorded r = record(dir.path(), {"-A", "off"});
  EXPECT_FALSE(fs::exists(r.experiment / "archives"));
  build_program(dir.path(), true);
  const Functions f = functions(r.experiment);
  EXPECT_EQ(f.rows.count("extra_fn"), 0u);
  EXPECT_EQ(f.rows.count("hot_loop"), 0u);
  EXPECT_NEAR(f.inclusive("<unknown> (prog, changed since recording)"), r.hot_loop_seconds,
              sampling_tolerance(r.hot_loop_seconds, kInterval));
  EXPECT_NE(f.err.find((dir.path() / "prog").string() + " changed since the experiment was recorded (build-id "),
            std::string::npos)
      << f.err;
}

// Without a build-id the file is known by its size, time and content.
TEST(RebuiltProgram, AProgramWithoutABuildIdIsKnownByItsContent) {
  TempDir dir;
  build_program(dir.path(), false, false);
  const Recorded r = record(dir.path(), {});
  build_program(dir.path(), true, false);
  expect_hot_loop_named(functions(r.experiment), r);

  TempDir unarchived;
  build_program(unarchived.path(), false, false);
  const Recorded off = record(unarchived.path(), {"-A", "off"});
  build_program(unarchived.path(), true, false);
  const Functions f = functions(off.experiment);
  EXPECT_EQ(f.rows.count("extra_fn"), 0u);
  EXPECT_NEAR(f.inclusive("<unknown> (prog, changed since recording)"), off.hot_loop_seconds,
              sampling_tolerance(off.hot_loop_seconds, kInterval));
  EXPECT_NE(f.err.find(" bytes, recorded "), std::string::npos) << f.err;
}

TEST(RebuiltProgram, TheDefaultArchiveNamesTheCodeOfAMovedOrDeletedProgram) {
  TempDir dir;
  build_program(dir.path(), false);
  const Recorded r = record(dir.path(), {});
  fs::rename(dir.path() / "prog", dir.path() / "moved");
  expect_hot_loop_named(functions(r.experiment), r);
  fs::remove(dir.path() / "moved");
  expect_hot_loop_named(functions(r.experiment), r);
}

TEST(RebuiltProgram, TheDefaultArchiveNamesTheCodeOfALibraryRebuiltInPlace) {
  TempDir dir;
  build_program_with_library(dir.path());
  const Recorded r = record(dir.path(), {});
  build_library(dir.path(), true);
  const Functions f = functions(r.experiment);
  expect_hot_loop_named(f, r);
  EXPECT_EQ(f.err.find("changed since"), std::string::npos) << f.err;
}

TEST(RebuiltProgram, WithoutTheArchiveARebuiltLibrarysCodeIsUnknown) {
  TempDir dir;
  build_program_with_library(dir.path());
  const Recorded r = record(dir.path(), {"-A", "off"});
  build_library(dir.path(), true);
  const Functions f = functions(r.experiment);
  EXPECT_EQ(f.rows.count("extra_fn"), 0u);
  EXPECT_NEAR(f.inclusive("<unknown> (libhot.so, changed since recording)"), r.hot_loop_seconds,
              sampling_tolerance(r.hot_loop_seconds, kInterval));
  EXPECT_NE(f.err.find("libhot.so changed since the experiment was recorded"), std::string::npos) << f.err;
}

}  // namespace
}  // namespace lumen::test
