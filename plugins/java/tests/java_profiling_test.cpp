// Java profiling end to end: a real JVM (JavaHotMethods, which times each of
// its methods with ThreadMXBean) under the real collector; er_print's Java
// methods compared with that truth within honest sampling tolerance.
#include <gtest/gtest.h>

#include "java_test_run.h"

namespace lumen::test {
namespace {

// collect <collect_args> <launcher...> -cp CLASSES JavaHotMethods NATIVE SHARE_MS [crash]
JavaRun collect_java(const TempDir& dir, const std::vector<std::string>& collect_args,
                     const std::vector<std::string>& launcher, const std::vector<std::string>& program_args) {
  std::vector<std::string> program{"JavaHotMethods", JAVA_TEST_NATIVE};
  program.insert(program.end(), program_args.begin(), program_args.end());
  return collect_java_program(dir, collect_args, launcher, program);
}

double value(const std::map<std::string, nlohmann::json>& rows, const std::string& name, const char* metric) {
  return row_value(rows, name, metric);
}

std::string row_names(const std::map<std::string, nlohmann::json>& rows) {
  std::string names;
  for (const auto& [name, values] : rows) names += name + "; ";
  return names;
}

// Rows by name, after checking that no two rows of the program's methods or
// of the roots share one: a method's own function and its compiled code's
// ("[compiled N]", one per version in machine mode), or a root recorded and
// one folded, would otherwise hide each other.
std::map<std::string, nlohmann::json> rows_in_mode(const JavaRun& r, const std::string& mode, const char* view) {
  const nlohmann::json list = er_print_json({"-viewmode", mode, "-metrics", "i.totalcpu:name", view}, r.experiment);
  std::map<std::string, int> seen;
  for (const auto& row : list.at("rows")) ++seen[row.at("name").get<std::string>()];
  for (const auto& [name, times] : seen)
    if (name.rfind("JavaHotMethods.", 0) == 0 || name.rfind("<", 0) == 0)
      EXPECT_EQ(times, 1) << name << " is " << times << " rows in " << mode << " mode";
  return rows_by_name(list);
}

void expect_methods_match_truth(const JavaRun& r) {
  const auto rows = rows_in_mode(r, "user", "-functions");
  constexpr double kInterval = 0.010;
  // Samples the JVM would not let AsyncGetCallTrace walk (at a safepoint,
  // deoptimizing) are shown, unattributed, under this root: any method may
  // lack that much, which is bounded.
  const double unwalked = unwalked_cpu(rows);
  for (const char* method : {"JavaHotMethods.spinBeta(long)", "JavaHotMethods.descend(int, long)",
                             "JavaHotMethods.burnInC(long)"}) {
    const double truth = r.truth.at(method).get<double>();
    ASSERT_TRUE(rows.count(method)) << method << " missing; rows: " << row_names(rows);
    EXPECT_NEAR(value(rows, method, "i.totalcpu"), truth, sampling_tolerance(truth, kInterval) + unwalked)
        << method << "; not walked: " << unwalked;
  }
  // spinAlpha runs on the workers and at the bottom of every recursion.
  const double alpha = r.truth.at("spin_alpha_outside_recursion").get<double>() +
                       r.truth.at("JavaHotMethods.descend(int, long)").get<double>();
  EXPECT_NEAR(value(rows, "JavaHotMethods.spinAlpha(long)", "i.totalcpu"), alpha,
              sampling_tolerance(alpha, kInterval) + unwalked);
  const double total = value(rows, "<Total>", "i.totalcpu");
  EXPECT_LT(value(rows, "<Unknown>", "i.totalcpu"), 0.05 * total) << row_names(rows);
}

bool any_row_in(const std::map<std::string, nlohmann::json>& rows, const std::string& part) {
  for (const auto& [name, values] : rows)
    if (name.find(part) != std::string::npos && values.at("i.totalcpu").get<double>() > 0) return true;
  return false;
}

// User mode (Oracle's Java representation) shows Java methods only: the
// JNI method's C code counts in the method, the JVM's own code is nowhere.
// Expert mode adds the native frames of code other than the JVM's; machine
// mode shows the JVM's frames too. The totals are the same in every mode.
void expect_view_modes(const JavaRun& r) {
  constexpr double kInterval = 0.010;
  const auto user = rows_in_mode(r, "user", "-functions");
  const auto expert = rows_in_mode(r, "expert", "-functions");
  const auto machine = rows_in_mode(r, "machine", "-functions");
  EXPECT_EQ(value(user, "burn_cpu_in_c", "i.totalcpu"), 0.0) << "native code in user mode";
  EXPECT_FALSE(any_row_in(rows_in_mode(r, "user", "-objects"), "libjvm.so"));
  // Expert mode shows native frames where user mode has <no Java callstack recorded>.
  const double unwalked = unwalked_cpu(user);
  // The C code of the native method (and the clock_gettime it calls), below its Java frame.
  const double native = r.truth.at("JavaHotMethods.burnInC(long)").get<double>();
  EXPECT_NEAR(value(expert, "burn_cpu_in_c", "i.totalcpu"), native, sampling_tolerance(native, kInterval) + unwalked);
  EXPECT_FALSE(any_row_in(rows_in_mode(r, "expert", "-objects"), "libjvm.so"));
  EXPECT_TRUE(any_row_in(rows_in_mode(r, "machine", "-objects"), "libjvm.so")) << "the JVM's frames in machine mode";
  EXPECT_EQ(value(machine, "<JVM-System>", "i.totalcpu"), 0.0);
  EXPECT_GT(value(machine, "JavaHotMethods.spinBeta(long)", "i.totalcpu"), 0.0);
  EXPECT_EQ(value(user, "<Total>", "i.totalcpu"), value(machine, "<Total>", "i.totalcpu"));
  EXPECT_EQ(value(expert, "<Total>", "i.totalcpu"), value(machine, "<Total>", "i.totalcpu"));
}

TEST(JavaProfiling, JavaMethodsMatchTheirOwnCpuAccounting) {
  TempDir dir;
  const JavaRun r = collect_java(dir, {"-j", "on", "-p", "on"}, {JAVA_TEST_JAVA}, {"600"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_NE(r.run.out.find("done"), std::string::npos);
  expect_methods_match_truth(r);
  expect_view_modes(r);
}

TEST(JavaProfiling, JvmHousekeepingThreadsAreUnderJvmSystem) {
  // No -j: the java launcher (it needs libjli.so) turns Java profiling on.
  TempDir dir;
  const JavaRun r = collect_java(dir, {"-p", "on"}, {JAVA_TEST_JAVA}, {"300"});
  EXPECT_NE(r.run.err.find("-agentpath:"), std::string::npos) << r.run.err;
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, r.experiment));
  // The JIT compilers run while the hot methods become compiled.
  const double jvm_system = value(rows, "<JVM-System>", "i.totalcpu");
  EXPECT_GT(jvm_system, 0.0) << row_names(rows);
  // -thread_list: Java threads by their Java names; the JVM's own threads
  // by their system names, marked as the system's. Their CPU time is all
  // under <JVM-System> (which also holds Java threads' moments before the
  // JVM announced them).
  const nlohmann::json threads = er_print_json({"-metrics", "e.totalcpu", "-thread_list"}, r.experiment);
  bool worker = false, compiler = false;
  double system_cpu = 0;
  for (const auto& row : threads.at("rows")) {
    const std::string name = row.at("name").get<std::string>();
    worker = worker || name.find(" (hot-worker-0)") != std::string::npos;
    if (name.find(", system)") == std::string::npos) continue;
    compiler = compiler || name.find("CompilerThre") != std::string::npos;
    for (const auto& [key, cpu] : row.at("values").items()) system_cpu += cpu.get<double>();
  }
  EXPECT_TRUE(worker) << threads.dump();
  EXPECT_TRUE(compiler) << threads.dump();
  EXPECT_GT(system_cpu, 0.0);
  EXPECT_LE(system_cpu, jvm_system + 1e-6) << threads.dump();
}

// The name a thread alive at JavaHotMethods' end should have, by what the
// program saw: its main thread "main"; a Java thread its Java name in full
// (the system keeps its first 15 bytes, which name one Java thread only);
// the JVM's own threads, which Java does not show, the system's name,
// marked as the system's. Empty for the launcher's first thread and the
// collector's own threads (lumen-...), which are not the program's.
std::string expected_thread_name(const nlohmann::json& truth, const std::string& tid, const std::string& comm,
                                 uint32_t pid) {
  if (tid == truth.at("main_thread").get<std::string>()) return "main";
  if (std::stoul(tid) == pid || comm.rfind("lumen-", 0) == 0) return "";
  std::string java;
  int matches = 0;
  for (const auto& name : truth.at("java_threads")) {
    const std::string full = name.get<std::string>();
    if (full.substr(0, 15) == comm) {
      java = full;
      ++matches;
    }
  }
  return matches == 1 ? java : comm + ", system";
}

// Every thread of the JVM is named as JVMTI names it in full, the JVM's
// own as the system names them, whether it started before the agent's
// VMInit (Reference Handler, Signal Dispatcher) or ended before the
// process did (the JVM ends its concurrent GC threads and its periodic
// task thread first); the main thread keeps "main" when the launcher
// attaches it again as DestroyJavaVM to end the JVM.
class JavaThreadNames : public JavaHotMethodsSuite {};

TEST_F(JavaThreadNames, ThreadsAreNamedInFullAsTheJvmNamesThem) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  const nlohmann::json threads = er_print_json({"-thread_list"}, run_->experiment);
  std::map<std::string, std::string> listed;  // tid -> name in the list
  uint32_t pid = UINT32_MAX;
  for (const auto& row : threads.at("rows")) {
    listed[row.at("tid").get<std::string>()] = row.at("name").get<std::string>();
    if (row.at("thread").get<std::string>() == "1") pid = std::stoul(row.at("tid").get<std::string>());
  }
  int checked = 0;
  for (const auto& [tid, comm] : run_->truth.at("system_threads").items()) {
    const std::string expected = expected_thread_name(run_->truth, tid, comm.get<std::string>(), pid);
    if (expected.empty()) continue;
    ASSERT_TRUE(listed.count(tid)) << "thread " << tid << " (" << expected << ") not listed: " << threads.dump();
    const std::string& name = listed[tid];
    EXPECT_EQ(name.substr(name.find(' ', 7) + 1), "(" + expected + ")") << tid;
    ++checked;
  }
  // main, Reference Handler, Signal Dispatcher, ..., GC and compiler threads.
  EXPECT_GE(checked, 12) << threads.dump();
}

TEST(JavaProfiling, JvmStartedByAShellScript) {
  TempDir dir;
  const JavaRun r = collect_java(dir, {"-j", "on", "-p", "on"}, {"/bin/sh", JAVA_TEST_SCRIPT}, {"300"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_NE(r.run.out.find("script done"), std::string::npos);
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, r.experiment));
  const double truth = r.truth.at("JavaHotMethods.spinBeta(long)").get<double>();
  EXPECT_NEAR(value(rows, "JavaHotMethods.spinBeta(long)", "i.totalcpu"), truth, sampling_tolerance(truth, 0.010))
      << row_names(rows);
}

TEST(JavaProfiling, JvmCrashingInNativeCodeLeavesAReadableExperiment) {
  TempDir dir;
  // -J reaches the JVM (no core file: the experiment is what is wanted).
  const JavaRun r = collect_java(dir, {"-J", "-XX:-CreateCoredumpOnCrash", "-p", "on"}, {JAVA_TEST_JAVA},
                                 {"200", "crash"});
  EXPECT_NE(r.run.exit_code, 0);
  EXPECT_NE(r.run.err.find("-XX:-CreateCoredumpOnCrash"), std::string::npos) << r.run.err;
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, r.experiment));
  EXPECT_GT(value(rows, "JavaHotMethods.spinBeta(long)", "i.totalcpu"), 0.0) << row_names(rows);
}

TEST(JavaProfiling, JdkPathThatIsNoJdkIsRefusedBeforeTheTargetStarts) {
  TempDir dir;
  const ProcessResult r = run_process({(bin_dir() / "collect").string(), "-d", dir.path().string(), "-j",
                                       (dir.path() / "no-jdk").string(), JAVA_TEST_JAVA, "-version"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("no JDK there"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("openjdk version"), std::string::npos) << "the target ran: " << r.err;
}

}  // namespace
}  // namespace lumen::test
