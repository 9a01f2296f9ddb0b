// The experiment's metadata as collect and the runtime share it: the
// collection plan survives its file unchanged, and the one header writer
// says the same of every process, as YAML that analysis reads back.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <csignal>
#include <sstream>

#include "collection_plan.h"
#include "experiment_header.h"
#include "test_support.h"

namespace lumen::test {
namespace {

using metadata::CollectionPlan;

CollectionPlan full_plan() {
  CollectionPlan plan;
  plan.profile_path = "/opt/lumen profiles/default.yaml";
  plan.follow = "=^worker [0-9]+%";
  plan.runtime.sample_period_ns = 250'000'000;
  plan.runtime.sample_signal = SIGUSR1;
  plan.runtime.pause_signal = SIGUSR2;
  plan.runtime.start_paused = true;
  plan.runtime.window_start_ns = 2'000'000'000;
  plan.runtime.window_end_ns = 5'000'000'000;
  plan.runtime.size_limit_bytes = 3 << 20;
  plan.runtime.archive = metadata::ArchiveMode::copy;
  plan.origin_ns = 123456789;
  plan.comments = {"first run: 8 threads", "", "line\nbreak"};
  plan.plugins.push_back({"clock", "1.0", "profile", "/usr/lib/lumen/plugins/clock/collector.so", {{"interval", "1000000"}}});
  plan.plugins.push_back({"hwc", "1.0", "hwcounters", "/p/hwc/collector.so", {{"counters", "task-clock,10007 cycles"}}});
  plan.left_out.push_back({"hwc", "cycles", "this machine has no hardware counters (perf_event_open: ENOENT)"});
  return plan;
}

TEST(CollectionPlanFile, WhatIsWrittenIsReadBackUnchanged) {
  const CollectionPlan written = full_plan();
  std::stringstream file;
  metadata::write_plan(written, file);
  CollectionPlan read;
  std::string error;
  ASSERT_TRUE(metadata::read_plan(file, "collector.plan", read, error)) << error << "\n" << file.str();
  EXPECT_EQ(read.profile_path, written.profile_path);
  EXPECT_EQ(read.follow, written.follow);
  EXPECT_EQ(read.runtime.sample_period_ns, written.runtime.sample_period_ns);
  EXPECT_EQ(read.runtime.sample_signal, SIGUSR1);
  EXPECT_EQ(read.runtime.pause_signal, SIGUSR2);
  EXPECT_TRUE(read.runtime.start_paused);
  EXPECT_EQ(read.runtime.window_start_ns, written.runtime.window_start_ns);
  EXPECT_EQ(read.runtime.window_end_ns, written.runtime.window_end_ns);
  EXPECT_EQ(read.runtime.size_limit_bytes, written.runtime.size_limit_bytes);
  EXPECT_EQ(read.runtime.archive, metadata::ArchiveMode::copy);
  EXPECT_EQ(read.origin_ns, written.origin_ns);
  EXPECT_EQ(read.comments, written.comments);
  ASSERT_EQ(read.plugins.size(), 2u);
  EXPECT_EQ(read.plugins[1].name, "hwc");
  EXPECT_EQ(read.plugins[1].data_file, "hwcounters");
  EXPECT_EQ(read.plugins[1].collector_path, written.plugins[1].collector_path);
  EXPECT_EQ(read.plugins[1].options, written.plugins[1].options);
  ASSERT_EQ(read.left_out.size(), 1u);
  EXPECT_EQ(read.left_out[0].reason, written.left_out[0].reason);
}

TEST(CollectionPlanFile, ANewerOrDamagedPlanIsRefusedWithItsLine) {
  CollectionPlan plan;
  std::string error;
  std::istringstream newer("lumen-plan 3\n");
  EXPECT_FALSE(metadata::read_plan(newer, "p", plan, error));
  EXPECT_EQ(error, "p:1: plan version 3 is not supported");
  std::istringstream damaged("lumen-plan 2\nsamples often\n");
  EXPECT_FALSE(metadata::read_plan(damaged, "p", plan, error));
  EXPECT_EQ(error, "p:2: cannot read 'samples often'");
  std::istringstream bad_escape("lumen-plan 2\ncomment 100%\n");
  EXPECT_FALSE(metadata::read_plan(bad_escape, "p", plan, error));
  std::istringstream empty("");
  EXPECT_FALSE(metadata::read_plan(empty, "p", plan, error));
}

TEST(ExperimentHeader, ADescendantsHeaderSaysWhatTheFoundersSays) {
  const CollectionPlan plan = full_plan();
  metadata::ProcessFacts founder;
  founder.command = {"/bin/prog", "two words", "0.5"};
  founder.start_wall_ns = 1700000000000000000;
  founder.start_monotonic_ns = 42;
  founder.target_pid = 1000;
  metadata::ProcessFacts child = founder;
  child.target_pid = 1001;
  child.parent_pid = 1000;
  child.lineage = "_f1_x1";
  child.rank = 3;
  const YAML::Node f = YAML::Load(metadata::header_text(plan, founder, nullptr));
  const YAML::Node c = YAML::Load(metadata::header_text(plan, child, nullptr));
  for (const char* key : {"format", "collector_version", "host", "cpus", "clock_mhz", "page_size", "comments",
                          "profile", "follow", "sample_period_ns", "sample_signal", "pause_signal", "start_paused",
                          "window", "size_limit_bytes", "archive", "plugins", "left_out"})
    EXPECT_EQ(YAML::Dump(f[key]), YAML::Dump(c[key])) << key;
  EXPECT_EQ(c["lineage"].as<std::string>(), "_f1_x1");
  EXPECT_EQ(c["parent_pid"].as<int>(), 1000);
  EXPECT_EQ(c["rank"].as<int>(), 3);
  EXPECT_FALSE(f["rank"]);
  EXPECT_EQ(f["command"][1].as<std::string>(), "two words");
  EXPECT_EQ(f["comments"][2].as<std::string>(), "line\nbreak");
  EXPECT_EQ(f["sample_signal"].as<std::string>(), "SIGUSR1");
  EXPECT_EQ(f["window"]["end_ns"].as<long long>(), 5'000'000'000);
  EXPECT_EQ(f["plugins"]["hwc"]["options"]["counters"].as<std::string>(), "task-clock,10007 cycles");
  EXPECT_EQ(f["plugins"]["clock"]["directory"].as<std::string>(), "/usr/lib/lumen/plugins/clock");
  EXPECT_EQ(f["left_out"][0]["what"].as<std::string>(), "cycles");
  EXPECT_GT(f["clock_mhz"].as<double>(), 0.0);
  EXPECT_FALSE(f["target_end"]);
}

TEST(ExperimentHeader, AnEndingIsAddedOnceAndReadBack) {
  TempDir dir;
  metadata::ProcessFacts facts;
  facts.command = {"prog"};
  std::string error;
  ASSERT_TRUE(metadata::write_header_file(dir.path().string(), metadata::header_text(full_plan(), facts, nullptr), error))
      << error;
  metadata::ProcessEnd killed;
  killed.signal = SIGKILL;
  killed.end_wall_ns = 7;
  EXPECT_TRUE(metadata::append_end(dir.path().string(), killed));
  metadata::ProcessEnd exited;
  exited.exited = true;
  EXPECT_FALSE(metadata::append_end(dir.path().string(), exited)) << "a second ending";
  const YAML::Node h = YAML::LoadFile((dir / "header.yaml").string());
  EXPECT_EQ(h["target_end"]["signal"].as<int>(), SIGKILL);
  EXPECT_EQ(h["target_end"]["signal_name"].as<std::string>(), "KILL");
  EXPECT_EQ(h["end_wall_ns"].as<long long>(), 7);
  EXPECT_FALSE(h["cut_short"]);
}

}  // namespace
}  // namespace lumen::test
