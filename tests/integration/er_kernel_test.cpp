// er_kernel on a real target that measured its own user and system time per
// function (system_time_target): each function's time in the target's
// process, its kernel share, the kernel's entry points of the calls it made,
// a forked child as a process of its own, <IDLE> apart, the command's exit
// status, and the refusal of a user the system does not let sample.
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

// Whether this machine lets this process sample every CPU (root, or the
// settings er_kernel names when it does not): asked of the kernel directly.
std::string system_wide_sampling_refused() {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.disabled = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0));
  if (fd < 0) return std::string("this machine does not let the tests sample every CPU: ") + std::strerror(errno);
  close(fd);
  return "";
}

struct KernelRun {
  ProcessResult run;
  std::filesystem::path experiment;
  nlohmann::json truth;
  nlohmann::json experiments;  // er_print -exp_list
  double stolen = 0;             // the machine's steal time over the run
};

KernelRun er_kernel(const TempDir& dir, const std::vector<std::string>& options, const std::vector<std::string>& command) {
  KernelRun k;
  k.experiment = dir.path() / "k.er";
  const auto truth_file = dir.path() / "truth.json";
  std::vector<std::string> argv{(bin_dir() / "er_kernel").string(), "-o", "k.er", "-d", dir.path().string()};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  const double steal_before = machine_steal_seconds();
  k.run = run_process(argv, {{"LUMEN_TEST_TRUTH", truth_file.string()}});
  k.stolen = machine_steal_seconds() - steal_before;
  if (std::ifstream in(truth_file); in) k.truth = nlohmann::json::parse(in);
  if (std::filesystem::exists(k.experiment / "header.yaml"))
    k.experiments = er_print_json({"-exp_list"}, k.experiment).at("experiments");
  return k;
}

// The id of the experiment of process `pid` whose lineage ends in `suffix`.
int experiment_of(const nlohmann::json& experiments, int pid, const std::string& suffix) {
  for (const auto& e : experiments) {
    const std::string lineage = e.at("lineage").get<std::string>();
    if (e.at("pid").get<int>() == pid && !lineage.empty() && lineage.ends_with(suffix)) return e.at("id").get<int>();
  }
  return -1;
}

std::map<std::string, nlohmann::json> functions_of(const std::filesystem::path& experiment, int id) {
  return rows_by_name(er_print_json({"-filters", "EXPID == " + std::to_string(id), "-metrics",
                                     "i.totalcpu:i.system:e.totalcpu", "-limit", "0", "-functions"},
                                    experiment));
}

// The kernel's user/system split of a thread's exact CPU time is itself a
// sample: the share of its 4 ms ticks that found the thread in the kernel.
// A function that enters the kernel a million times a second is split as
// a proportion of some hundred ticks, and er_kernel's as one of its 1 ms
// samples: three standard errors of the two proportions, and a quantum each.
// Both are interrupts, which the kernel holds off on its way back to user
// mode: one due then lands on the first user instruction (perf's skid). On
// a loaded machine, a function entering the kernel 100,000 times a second
// was measured with up to 9 % of its time moved so, either way: allow 10 %.
double split_tolerance(double total, double system) {
  const double share = total > 0 ? std::clamp(system / total, 0.0, 1.0) : 0;
  const double ticks = std::max(total / 0.004, 1.0), samples = std::max(total / 0.001, 1.0);
  return 3 * std::sqrt(share * (1 - share) * (1 / ticks + 1 / samples)) * total + 0.004 + 0.001 + 0.10 * total;
}

class ErKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string refused = system_wide_sampling_refused(); !refused.empty()) GTEST_SKIP() << refused;
  }
};

TEST_F(ErKernel, EachFunctionsTimeAndItsKernelShareAreWhatTheTargetMeasured) {
  TempDir dir;
  const KernelRun k = er_kernel(dir, {"-p", "hi", "-A", "off"}, {(target_dir() / "system_time_target").string()});
  ASSERT_EQ(k.run.exit_code, 0) << k.run.err;
  ASSERT_TRUE(k.truth.contains("functions")) << k.run.err;
  const int id = experiment_of(k.experiments, k.truth.at("pid").get<int>(), "_x1");  // the image after exec
  ASSERT_GT(id, 0) << k.experiments.dump();
  auto rows = functions_of(k.experiment, id);
  // Each function's share of the process's time, and the kernel's share of
  // each function's: where the CPU was at each 1 ms mark of its clock. The
  // process's total is its threads' CPU time only on an idle machine: on a
  // loaded one a CPU switches tasks on its 4 ms tick, and each mark near a
  // switch lands on one side of it, the same side for a whole run (measured
  // here under load: totals 6 % off either way, shares within 1 point).
  // The CPU clock goes on through time the hypervisor stole from the
  // target's virtual CPU, which the target's own CPU time leaves out.
  double truth_total = 0;
  for (const auto& [name, truth] : k.truth.at("functions").items())
    truth_total += truth.at("user").get<double>() + truth.at("system").get<double>();
  const double sampled_total = rows["<Total>"].at("i.totalcpu").get<double>();
  EXPECT_NEAR(sampled_total, truth_total, 0.15 * truth_total + k.stolen);
  for (const auto& [name, truth] : k.truth.at("functions").items()) {
    const double user = truth.at("user").get<double>(), system = truth.at("system").get<double>();
    ASSERT_TRUE(rows.count(name)) << name;
    const double total = rows[name].at("i.totalcpu").get<double>();
    const double kernel = rows[name].at("i.system").get<double>();
    EXPECT_NEAR(total / sampled_total, (user + system) / truth_total,
                sampling_tolerance(user + system, 0.001) / truth_total)
        << name;
    EXPECT_NEAR(kernel / total * (user + system), system, split_tolerance(user + system, system)) << name;
  }
  // The calls it made entered the kernel where they do on x86-64.
  const auto has_prefix = [&](const std::string& prefix) {
    for (const auto& [name, values] : rows)
      if (name.starts_with(prefix)) return true;
    return false;
  };
  EXPECT_TRUE(has_prefix("entry_SYSCALL_64"));
  EXPECT_TRUE(rows.count("__x64_sys_getpid"));
  EXPECT_TRUE(rows.count("ksys_read") || rows.count("__x64_sys_read"));
  EXPECT_TRUE(rows.count("asm_exc_page_fault") || rows.count("exc_page_fault"));
  EXPECT_FALSE(rows.count("<IDLE>"));
  // Kernel functions belong to <Kernel>; the target's to its program.
  const auto objects = er_print_json({"-filters", "EXPID == " + std::to_string(id), "-functions"}, k.experiment);
  for (const auto& row : objects.at("rows")) {
    const std::string name = row.at("name").get<std::string>();
    if (name == "__x64_sys_getpid") {
      EXPECT_EQ(row.at("load_object").get<std::string>(), "<Kernel>");
    }
    if (name == "getpid_loop") {
      EXPECT_EQ(row.at("load_object").get<std::string>(), "system_time_target");
    }
  }
}

TEST_F(ErKernel, AForkedChildIsAProcessOfItsOwnNamedThroughItsParentsMappings) {
  TempDir dir;
  const KernelRun k = er_kernel(dir, {"-p", "hi", "-A", "off"}, {(target_dir() / "system_time_target").string()});
  ASSERT_EQ(k.run.exit_code, 0) << k.run.err;
  ASSERT_TRUE(k.truth.contains("child_pid")) << k.run.err;
  const int id = experiment_of(k.experiments, k.truth.at("child_pid").get<int>(), "");
  ASSERT_GT(id, 0) << k.experiments.dump();
  // It ended before the recording did, seen from outside.
  EXPECT_EQ(k.experiments.at(id - 1).at("ending").get<std::string>(), "exited");
  auto rows = functions_of(k.experiment, id);
  const double truth = k.truth.at("child").at("user").get<double>() + k.truth.at("child").at("system").get<double>();
  // Within what a loaded machine allows (see above).
  const double total = rows["<Total>"].at("i.totalcpu").get<double>();
  EXPECT_NEAR(total, truth, 0.15 * truth + sampling_tolerance(truth, 0.001) + k.stolen);
  ASSERT_TRUE(rows.count("user_spin"));
  EXPECT_NEAR(rows["user_spin"].at("i.totalcpu").get<double>() / total, 1.0, sampling_tolerance(truth, 0.001) / truth);
  // The child's experiment holds none of what only its parent ran.
  for (const char* parents_own : {"read_zero_loop", "getpid_loop", "fault_loop"}) EXPECT_FALSE(rows.count(parents_own));
}

TEST_F(ErKernel, ProcessesAreAnIndexObjectAndAFilter) {
  TempDir dir;
  const KernelRun k = er_kernel(dir, {"-p", "hi", "-A", "off"}, {(target_dir() / "system_time_target").string()});
  ASSERT_EQ(k.run.exit_code, 0) << k.run.err;
  ASSERT_TRUE(k.truth.contains("child_pid")) << k.run.err;
  const int pid = k.truth.at("pid").get<int>(), child = k.truth.at("child_pid").get<int>();
  const auto total_of = [&](const std::vector<std::string>& args) {
    std::vector<std::string> all{"-metrics", "i.totalcpu"};
    all.insert(all.end(), args.begin(), args.end());
    return rows_by_name(er_print_json(all, k.experiment));
  };
  // The filter PID == N selects what the process's experiments hold: each
  // image (before and after its exec) of the process.
  std::string images;
  for (const auto& e : k.experiments)
    if (e.at("pid").get<int>() == pid && !e.at("lineage").get<std::string>().empty())
      images += (images.empty() ? "" : ", ") + std::to_string(e.at("id").get<int>());
  const double by_experiment =
      total_of({"-filters", "EXPID IN (" + images + ")", "-functions"}).at("<Total>").at("i.totalcpu");
  const double by_pid = total_of({"-filters", "PID == " + std::to_string(pid), "-functions"}).at("<Total>").at("i.totalcpu");
  EXPECT_GT(by_pid, 0);
  EXPECT_NEAR(by_pid, by_experiment, 1e-9);
  // The Processes index object: a row per process, named with its command.
  const auto processes = total_of({"-indxobj", "Processes"});
  const std::string command = " (" + (target_dir() / "system_time_target").string() + ")";
  ASSERT_TRUE(processes.count("Process " + std::to_string(pid) + command)) << k.experiments.dump();
  ASSERT_TRUE(processes.count("Process " + std::to_string(child) + command));
  EXPECT_NEAR(processes.at("Process " + std::to_string(pid) + command).at("i.totalcpu").get<double>(), by_pid, 1e-9);
  const double child_total =
      total_of({"-filters", "PID == " + std::to_string(child), "-functions"}).at("<Total>").at("i.totalcpu");
  EXPECT_NEAR(processes.at("Process " + std::to_string(child) + command).at("i.totalcpu").get<double>(), child_total,
              1e-9);
}

TEST_F(ErKernel, IdleCpusAreOnlyIdleAndEveryCpuSampleIsSomeProcesss) {
  TempDir dir;
  const KernelRun k = er_kernel(dir, {"-A", "off"}, {"sleep", "0.5"});
  ASSERT_EQ(k.run.exit_code, 0) << k.run.err;
  for (const auto& e : k.experiments) {
    if (e.at("lineage").get<std::string>().empty()) continue;
    auto rows = functions_of(k.experiment, e.at("id").get<int>());
    if (e.at("pid").get<int>() == 0) {
      EXPECT_EQ(e.at("command").get<std::string>(), "<IDLE>");
      for (const auto& [name, values] : rows) EXPECT_TRUE(name == "<Total>" || name == "<IDLE>") << name;
    } else {
      EXPECT_FALSE(rows.count("<IDLE>")) << e.dump();
    }
  }
  // What every process holds adds up to what the header says was sampled.
  std::ifstream header(k.experiment / "header.yaml");
  std::string text((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
  const size_t at = text.find("samples: ");
  ASSERT_NE(at, std::string::npos) << text;
  const long samples = std::stol(text.substr(at + 9));
  const auto all = rows_by_name(er_print_json({"-metrics", "e.totalcpu", "-functions"}, k.experiment));
  EXPECT_NEAR(all.at("<Total>").at("e.totalcpu").get<double>(), samples * 0.010, 0.0005 + samples * 1e-6);
}

TEST_F(ErKernel, ExitsWithItsCommandsStatus) {
  TempDir dir;
  EXPECT_EQ(er_kernel(dir, {"-A", "off"}, {"sh", "-c", "exit 7"}).run.exit_code, 7);
}

// An ignored SIGCHLD inherited (an ignored signal stays ignored across
// exec) neither leaves er_kernel waiting for nothing nor changes what the
// command sees: its ignored signals read as without er_kernel.
TEST_F(ErKernel, TheCommandSeesTheSignalsItWouldAndAnIgnoredSigchldDoesNotHang) {
  TempDir dir;
  const std::string show = "grep SigIgn /proc/self/status; exit 5";
  const auto er_kernel = [&](const std::string& name) {
    return (bin_dir() / "er_kernel").string() + " -A off -o " + name + " -d " + dir.path().string();
  };
  const ProcessResult plain = run_process({"sh", "-c", "trap '' CHLD PIPE; sh -c '" + show + "'"});
  const ProcessResult under =
      run_process({"sh", "-c", "trap '' CHLD PIPE; exec " + er_kernel("a.er") + " -- sh -c '" + show + "'"}, {}, "", 60);
  EXPECT_FALSE(under.timed_out);
  EXPECT_EQ(under.exit_code, 5) << under.err;
  EXPECT_EQ(under.out, plain.out);
  // Neither ignored: the command's are not either (er_kernel ignores
  // SIGPIPE for itself only).
  const ProcessResult handled = run_process({"sh", "-c", er_kernel("b.er") + " -- sh -c '" + show + "'"});
  EXPECT_EQ(handled.exit_code, 5) << handled.err;
  EXPECT_EQ(handled.out, run_process({"sh", "-c", show}).out);
}

TEST_F(ErKernel, ForADurationWithoutACommand) {
  TempDir dir;
  const auto argv = std::vector<std::string>{(bin_dir() / "er_kernel").string(), "-t", "0.3", "-A", "off",
                                             "-o", "k.er", "-d", dir.path().string()};
  const ProcessResult r = run_process(argv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("samples of"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "k.er" / "header.yaml"));
}

// Another user, where the kernel's setting keeps users from sampling
// every CPU: the error names the setting and what to do.
TEST(ErKernelRefusal, AUserTheSystemDoesNotLetSampleIsToldWhichSettingDecides) {
  if (geteuid() != 0) GTEST_SKIP() << "the test runs er_kernel as another user, which takes root";
  std::ifstream paranoid_file("/proc/sys/kernel/perf_event_paranoid");
  int paranoid = 2;
  paranoid_file >> paranoid;
  if (paranoid <= 0) GTEST_SKIP() << "kernel.perf_event_paranoid is " << paranoid << ": every user may sample every CPU";
  TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);  // were it to record, as nobody
  const ProcessResult r = run_process({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                       (bin_dir() / "er_kernel").string(), "-t", "0.1", "-A", "off", "-d",
                                       dir.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("perf_event_paranoid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("CAP_PERFMON"), std::string::npos) << r.err;
}

TEST(ErKernelUsage, BadOptionsAreNamed) {
  const ProcessResult r = run_process({(bin_dir() / "er_kernel").string(), "-p", "sometimes"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-p"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lumen::test
