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
