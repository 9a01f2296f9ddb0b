// collect's use of a collector half's host hooks before the target starts:
// what leave_out drops is printed, kept in the plan and taken out of the
// plugin's options (the whole plugin when nothing remains); what check
// refuses stops collect.
#include <gtest/gtest.h>

#include "plugin_hooks.h"
#include "test_support.h"

namespace lumen::test {
namespace {

using collect::CollectionPlan;
using collect::InstalledPlugin;

class PluginHooks : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    installed_ = new std::map<std::string, InstalledPlugin>;
    const std::filesystem::path collector = LUMEN_TEST_NARROWING_PLUGIN;
    installed_->emplace("narrowing", InstalledPlugin{{"narrowing", collector.parent_path()},
                                                     host::load_collector_half(collector), {}, nullptr, nullptr});
  }
  static void TearDownTestSuite() {
    delete installed_;
    installed_ = nullptr;
  }
  static CollectionPlan plan_with(const std::string& items) {
    CollectionPlan plan;
    plan.plugins.push_back({"narrowing", "1.0", "narrowing", LUMEN_TEST_NARROWING_PLUGIN, {{"items", items}}});
    return plan;
  }
  // Runs check_plan_here; returns what it printed on stderr.
  static std::string checked(CollectionPlan& plan) {
    testing::internal::CaptureStderr();
    collect::check_plan_here(plan, *installed_);
    return testing::internal::GetCapturedStderr();
  }
  static std::map<std::string, InstalledPlugin>* installed_;
};
std::map<std::string, InstalledPlugin>* PluginHooks::installed_ = nullptr;

TEST_F(PluginHooks, WhatTheMachineCannotDoIsLeftOutAndTheRestKept) {
  CollectionPlan plan = plan_with("a,absent1,b");
  const std::string printed = checked(plan);
  EXPECT_EQ(printed, "collect: -z: absent1 is absent here; absent1 is left out, and the target runs without it\n");
  ASSERT_EQ(plan.plugins.size(), 1u);
  EXPECT_EQ(plan.plugins[0].options.at(0).second, "a,b");
  ASSERT_EQ(plan.left_out.size(), 1u);
  EXPECT_EQ(plan.left_out[0].plugin, "narrowing");
  EXPECT_EQ(plan.left_out[0].what, "absent1");
  EXPECT_EQ(plan.left_out[0].reason, "absent1 is absent here");
}

TEST_F(PluginHooks, APluginLeftWithNothingLeavesThePlan) {
  CollectionPlan plan = plan_with("absent1,absent2");
  const std::string printed = checked(plan);
  EXPECT_TRUE(plan.plugins.empty());
  EXPECT_EQ(plan.left_out.size(), 2u);
  EXPECT_NE(printed.find("absent2 is left out"), std::string::npos) << printed;
}

TEST_F(PluginHooks, NothingLeftOutChangesNothing) {
  CollectionPlan plan = plan_with("a,b");
  EXPECT_EQ(checked(plan), "");
  EXPECT_EQ(plan.plugins.at(0).options.at(0).second, "a,b");
  EXPECT_TRUE(plan.left_out.empty());
}

TEST_F(PluginHooks, CheckStillRefusesWhatRemains) {
  CollectionPlan plan = plan_with("absent1,bad");
  std::string message;
  testing::internal::CaptureStderr();
  EXPECT_THROW_MESSAGE(collect::check_plan_here(plan, *installed_), std::runtime_error, message);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(message, "-z: bad is refused");
}

// Options written in a profile: the refusal names its file and line, where
// a flag names the flag.
TEST_F(PluginHooks, ARefusalNamesTheProfileLineItsOptionsCameFrom) {
  std::string message;
  testing::internal::CaptureStderr();
  CollectionPlan from_profile = plan_with("bad");
  EXPECT_THROW_MESSAGE(collect::check_plan_here(from_profile, *installed_, {{"narrowing", "/p/hw.yaml:4"}}),
                       std::runtime_error, message);
  EXPECT_EQ(message, "/p/hw.yaml:4: plugin 'narrowing': bad is refused");
  CollectionPlan from_flag = plan_with("bad");
  EXPECT_THROW_MESSAGE(collect::check_plan_here(from_flag, *installed_, {{"narrowing", "-z"}}), std::runtime_error,
                       message);
  EXPECT_EQ(message, "-z: bad is refused");
  testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace lumen::test
