// How the Java plugin folds stacks in each view mode (java_view_modes.h),
// on frames written by hand as the agent records them.
#include "../analysis/java_view_modes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../java_record.h"

using namespace lumen::java;

namespace {

std::vector<std::string> folded(lumen_view_mode mode, const std::vector<lumen_view_frame>& frames) {
  std::vector<lumen_folded_frame> out(frames.size() + 1);
  const size_t n = fold_stack(mode, frames.data(), frames.size(), out.data());
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i)
    names.push_back(out[i].frame >= 0 ? frames[out[i].frame].function : out[i].artificial);
  return names;
}

const uint64_t kMethodA = java_frame(0x7f0000001000, 12);
const uint64_t kMethodB = java_frame(0x7f0000002000, 3);

// A JNI method's C code calling into the JVM, below two Java frames.
const std::vector<lumen_view_frame> kJavaThread = {{0x7f1000000000, "JVM_ArrayCopy", "libjvm.so"},
                                                   {0x7f2000000000, "burn_cpu_in_c", "libburn.so"},
                                                   {kMethodA, "App.burnInC(long)", "<dynamic code>"},
                                                   {kMethodB, "App.main(java.lang.String[])", "<dynamic code>"}};
// A sample in a compiled method's code: the code, then its Java frames.
const std::vector<lumen_view_frame> kInCompiledCode = {{0x7f4000000040, "App.spin(long) [compiled 1]", "<dynamic code>"},
                                                       {kMethodA, "App.spin(long)", "<dynamic code>"},
                                                       {kMethodB, "App.main(java.lang.String[])", "<dynamic code>"}};
// A compiler thread: native frames under <JVM-System>.
const std::vector<lumen_view_frame> kCompilerThread = {{0x7f1000001000, "Compile::Compile", "libjvm.so"},
                                                       {0x7f3000000000, "start_thread", "libc.so.6"},
                                                       {kJvmSystemBase | uint64_t(kBciBias), "<JVM-System>",
                                                        "<dynamic code>"}};
// A Java thread whose Java stack could not be walked.
const std::vector<lumen_view_frame> kUnwalked = {{0x7f1000002000, "SafepointSynchronize::block", "libjvm.so"},
                                                 {0x7f3000000000, "start_thread", "libc.so.6"},
                                                 {kNoJavaStackBase | uint64_t(kBciBias), "<no Java callstack recorded>",
                                                  "<dynamic code>"}};

// Stacks an off-CPU sampler unwound from outside the thread: native frames
// only, no root. A Java thread blocked in compiled code's call into the JVM,
// and a GC thread waiting.
const std::vector<lumen_view_frame> kBlockedJavaThread = {
    {0x7f3000001000, "pthread_cond_wait", "libc.so.6"},
    {0x7f1000003000, "ObjectMonitor::wait", "libjvm.so"},
    {0x7f4000000000, "App.spin(long) [compiled 1]", "<dynamic code>"},
    {0x7f4000100000, "Interpreter", "<dynamic code>"}};
const std::vector<lumen_view_frame> kBlockedGcThread = {{0x7f3000001000, "pthread_cond_wait", "libc.so.6"},
                                                        {0x7f1000004000, "GCTaskThread::run", "libjvm.so"},
                                                        {0x7f3000000000, "start_thread", "libc.so.6"}};
// The launcher's first thread, waiting for the JVM's: no JVM code.
const std::vector<lumen_view_frame> kLauncherThread = {{0x7f3000002000, "pthread_join", "libc.so.6"},
                                                       {0x7f5000000000, "JavaMain", "libjli.so"}};

// Which folded frames are artificial functions.
std::vector<bool> artificial(lumen_view_mode mode, const std::vector<lumen_view_frame>& frames) {
  std::vector<lumen_folded_frame> out(frames.size() + 1);
  const size_t n = fold_stack(mode, frames.data(), frames.size(), out.data());
  std::vector<bool> flags;
  for (size_t i = 0; i < n; ++i) flags.push_back(out[i].frame < 0);
  return flags;
}

}  // namespace

TEST(JavaViewModes, UserModeShowsJavaMethodsOnly) {
  EXPECT_EQ(folded(LUMEN_VIEW_USER, kJavaThread),
            (std::vector<std::string>{"App.burnInC(long)", "App.main(java.lang.String[])"}));
  EXPECT_EQ(folded(LUMEN_VIEW_USER, kCompilerThread), (std::vector<std::string>{"<JVM-System>"}));
  EXPECT_EQ(folded(LUMEN_VIEW_USER, kUnwalked), (std::vector<std::string>{"<no Java callstack recorded>"}));
}

TEST(JavaViewModes, ExpertModeAddsNativeCodeOtherThanTheJvms) {
  EXPECT_EQ(folded(LUMEN_VIEW_EXPERT, kJavaThread),
            (std::vector<std::string>{"burn_cpu_in_c", "App.burnInC(long)", "App.main(java.lang.String[])"}));
  EXPECT_EQ(folded(LUMEN_VIEW_EXPERT, kCompilerThread), (std::vector<std::string>{"start_thread", "<JVM-System>"}));
  EXPECT_EQ(folded(LUMEN_VIEW_EXPERT, kUnwalked), (std::vector<std::string>{"start_thread"}));
}

TEST(JavaViewModes, MachineModeShowsEveryNativeFrame) {
  EXPECT_EQ(folded(LUMEN_VIEW_MACHINE, kJavaThread),
            (std::vector<std::string>{"JVM_ArrayCopy", "burn_cpu_in_c", "App.burnInC(long)",
                                      "App.main(java.lang.String[])"}));
  EXPECT_EQ(folded(LUMEN_VIEW_MACHINE, kCompilerThread), (std::vector<std::string>{"Compile::Compile", "start_thread"}));
}

TEST(JavaViewModes, UserModeRootsStacksUnwoundFromOutsideTheThread) {
  EXPECT_EQ(folded(LUMEN_VIEW_USER, kBlockedJavaThread), (std::vector<std::string>{"<no Java callstack recorded>"}));
  EXPECT_EQ(folded(LUMEN_VIEW_USER, kBlockedGcThread), (std::vector<std::string>{"<JVM-System>"}));
  EXPECT_EQ(folded(LUMEN_VIEW_USER, kLauncherThread), (std::vector<std::string>{"pthread_join", "JavaMain"}));
  // Expert mode shows the compiled method's code, not the JVM's.
  EXPECT_EQ(folded(LUMEN_VIEW_EXPERT, kBlockedJavaThread),
            (std::vector<std::string>{"pthread_cond_wait", "App.spin(long) [compiled 1]", "Interpreter"}));
}

// The compiled code's own frame shows in machine mode only: in the others
// its Java frame stands for it.
TEST(JavaViewModes, CompiledCodeUnderJavaFramesShowsInMachineModeOnly) {
  EXPECT_EQ(folded(LUMEN_VIEW_USER, kInCompiledCode),
            (std::vector<std::string>{"App.spin(long)", "App.main(java.lang.String[])"}));
  EXPECT_EQ(folded(LUMEN_VIEW_EXPERT, kInCompiledCode),
            (std::vector<std::string>{"App.spin(long)", "App.main(java.lang.String[])"}));
  EXPECT_EQ(folded(LUMEN_VIEW_MACHINE, kInCompiledCode),
            (std::vector<std::string>{"App.spin(long) [compiled 1]", "App.spin(long)", "App.main(java.lang.String[])"}));
}

// A root is one artificial function whether the stack recorded it or not,
// so that its name is one row of the function list.
TEST(JavaViewModes, RootsAreArtificialFunctionsInEveryMode) {
  EXPECT_EQ(artificial(LUMEN_VIEW_USER, kUnwalked), (std::vector<bool>{true}));
  EXPECT_EQ(artificial(LUMEN_VIEW_USER, kCompilerThread), (std::vector<bool>{true}));
  EXPECT_EQ(artificial(LUMEN_VIEW_USER, kBlockedJavaThread), (std::vector<bool>{true}));
  EXPECT_EQ(artificial(LUMEN_VIEW_EXPERT, kCompilerThread), (std::vector<bool>{false, true}));
}

// A sample taken in the kernel has the kernel's frames above the user ones
// (collect -k). Kernel addresses have bit 63 set, as Java frames do; they
// are not Java frames: a compiler thread's system time stays under
// <JVM-System> in user mode, where it showed as kernel frames alone.
TEST(JavaViewModes, KernelFramesAreNotJavaFrames) {
  const lumen_view_frame futex_wait{0xffffffff8123f000, "futex_wait", "<Kernel>"};
  const lumen_view_frame syscall_entry{0xffffffff82400080, "entry_SYSCALL_64_after_hwframe", "<Kernel>"};
  EXPECT_FALSE(is_java_frame(futex_wait.pc));
  std::vector<lumen_view_frame> compiler{futex_wait, syscall_entry};
  compiler.insert(compiler.end(), kCompilerThread.begin(), kCompilerThread.end());
  EXPECT_EQ(folded(LUMEN_VIEW_USER, compiler), (std::vector<std::string>{"<JVM-System>"}));
  EXPECT_EQ(folded(LUMEN_VIEW_EXPERT, compiler),
            (std::vector<std::string>{"futex_wait", "entry_SYSCALL_64_after_hwframe", "start_thread", "<JVM-System>"}));
  std::vector<lumen_view_frame> java{futex_wait, syscall_entry};
  java.insert(java.end(), kJavaThread.begin(), kJavaThread.end());
  EXPECT_EQ(folded(LUMEN_VIEW_USER, java),
            (std::vector<std::string>{"App.burnInC(long)", "App.main(java.lang.String[])"}));
}
