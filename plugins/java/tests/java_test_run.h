// Running a self-timed Java test program under collect, and reading what
// it measured of itself (the JSON file LUMEN_TEST_TRUTH names).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lumen_commands.h"

namespace lumen::test {

struct JavaRun {
  std::filesystem::path experiment;
  nlohmann::json truth;
  ProcessResult run;
};

// collect <collect_args> <launcher...> -cp CLASSES <program...>, recording
// DIR/run.er.
JavaRun collect_java_program(const TempDir& dir, const std::vector<std::string>& collect_args,
                             const std::vector<std::string>& launcher, const std::vector<std::string>& program);

// A row's metric, 0 when there is no such row.
double row_value(const std::map<std::string, nlohmann::json>& rows, const std::string& name, const char* metric);

// The CPU time of the samples whose Java stack AsyncGetCallTrace could not
// walk (<no Java callstack recorded> in user-mode `rows` of i.totalcpu),
// which any method may lack: checked to be at most 5 samples (50 ms) and
// 2 % of <Total>. Eight runs of JavaHotMethods had 1 to 5 samples of about
// 780 (0.14-0.68 %), in the JVM's calls from the interpreter at start,
// which a short run has as many of (JavaDeepStacks: 3 of 130); Oracle's
// manual calls 5-10 % typical.
double unwalked_cpu(const std::map<std::string, nlohmann::json>& rows);

// A suite of tests on one collection of JavaHotMethods (-j on -p on, 300 ms
// a method), made once for the suite.
class JavaHotMethodsSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  static TempDir* dir_;
  static JavaRun* run_;
};

}  // namespace lumen::test
