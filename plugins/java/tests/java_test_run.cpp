#include "java_test_run.h"

#include <fstream>

namespace lumen::test {

JavaRun collect_java_program(const TempDir& dir, const std::vector<std::string>& collect_args,
                             const std::vector<std::string>& launcher, const std::vector<std::string>& program) {
  JavaRun r;
  r.experiment = dir.path() / "run.er";
  const auto truth_file = dir.path() / "truth.json";
  std::vector<std::string> argv{(bin_dir() / "collect").string(), "-o", "run.er", "-d", dir.path().string()};
  argv.insert(argv.end(), collect_args.begin(), collect_args.end());
  argv.insert(argv.end(), launcher.begin(), launcher.end());
  argv.insert(argv.end(), {"-cp", JAVA_TEST_CLASS_DIR});
  argv.insert(argv.end(), program.begin(), program.end());
  r.run = run_process(argv, {{"LUMEN_TEST_TRUTH", truth_file.string()}}, "", 120);
  std::ifstream in(truth_file);
  if (in) r.truth = nlohmann::json::parse(in);
  return r;
}

double row_value(const std::map<std::string, nlohmann::json>& rows, const std::string& name, const char* metric) {
  const auto row = rows.find(name);
  return row == rows.end() ? 0.0 : row->second.at(metric).get<double>();
}

double unwalked_cpu(const std::map<std::string, nlohmann::json>& rows) {
  const double unwalked = row_value(rows, "<no Java callstack recorded>", "i.totalcpu");
  EXPECT_LE(unwalked, 0.05 + 0.02 * row_value(rows, "<Total>", "i.totalcpu")) << "Java stacks not walked";
  return unwalked;
}

TempDir* JavaHotMethodsSuite::dir_ = nullptr;
JavaRun* JavaHotMethodsSuite::run_ = nullptr;

void JavaHotMethodsSuite::SetUpTestSuite() {
  dir_ = new TempDir;
  run_ = new JavaRun(collect_java_program(*dir_, {"-j", "on", "-p", "on"}, {JAVA_TEST_JAVA},
                                          {"JavaHotMethods", JAVA_TEST_NATIVE, "300"}));
}

void JavaHotMethodsSuite::TearDownTestSuite() {
  delete run_;
  delete dir_;
  run_ = nullptr;
  dir_ = nullptr;
}

}  // namespace lumen::test
