// The sync plugin's deterministic parts: the threshold option's syntax, and
// the analysis half's decoder fed records directly.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <lumen/analysis_plugin.h>

#include <cstring>
#include <vector>

#include "../collector/sync_threshold.h"
#include "../sync_record.h"

namespace lumen::sync {
namespace {

ThresholdSetting parsed(const char* text) {
  ThresholdSetting s;
  s.ns = -1;
  EXPECT_TRUE(parse_threshold(text, &s)) << text;
  return s;
}

TEST(SyncThresholdOption, WordsAndMicroseconds) {
  EXPECT_TRUE(parsed("calibrate").calibrate);
  EXPECT_TRUE(parsed("on").calibrate);
  EXPECT_FALSE(parsed("all").calibrate);
  EXPECT_EQ(parsed("all").ns, 0);
  EXPECT_EQ(parsed("0").ns, 0);
  EXPECT_EQ(parsed("5000").ns, 5'000'000);
  EXPECT_EQ(parsed("0.5").ns, 500);
  EXPECT_EQ(parsed("1.25").ns, 1'250);
  EXPECT_EQ(parsed("250ns").ns, 250);
  EXPECT_EQ(parsed("3us").ns, 3'000);
  EXPECT_EQ(parsed("2ms").ns, 2'000'000);
  EXPECT_EQ(parsed("1s").ns, 1'000'000'000);
  EXPECT_EQ(parsed("3600s").ns, kMaxThresholdNs);
  EXPECT_FALSE(parsed("5000").calibrate);
  // gprofng's API suffix.
  EXPECT_TRUE(parsed("on,n").calibrate);
  EXPECT_EQ(parsed("all,nj").ns, 0);
  EXPECT_EQ(parsed("5000,j").ns, 5'000'000);
}

TEST(SyncThresholdOption, RefusesAnythingElse) {
  ThresholdSetting s;
  for (const char* bad : {"", "off", "Calibrate", "-1", "5 ms", "5m", "1e3", ".", "abc", "3601s", "99999999999999999999",
                          "1.2.3", "ms", "on,", ",n", "on,x", "on,n,n", "5000,jn"})
    EXPECT_FALSE(parse_threshold(bad, &s)) << "'" << bad << "'";
  EXPECT_FALSE(parse_threshold(nullptr, &s));
}

// ---- the decoder, through the built analysis half ----

class SyncDecoder : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ = dlopen(LUMEN_SYNC_ANALYSIS, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    auto factory = reinterpret_cast<lumen_analysis_factory>(dlsym(handle_, LUMEN_ANALYSIS_FACTORY));
    ASSERT_NE(factory, nullptr);
    plugin_ = factory();
  }
  void TearDown() override {
    if (handle_) dlclose(handle_);
  }

  // Decodes one record; returns the decoder's status and collects events.
  int decode(uint16_t kind, const void* payload, uint16_t bytes) {
    char error[256] = "";
    // An event's values are the decoder's own until emit returns: copied.
    // The sync decoder names no artificial function, stitches nothing
    // and reports no spans, levels, code or record threads.
    lumen_event_sink sink{.size = sizeof(lumen_event_sink),
                          .context = this,
                          .emit = [](void* context, const lumen_event* e) {
                            auto* self = static_cast<SyncDecoder*>(context);
                            self->events_.push_back(*e);
                            self->values_.emplace_back(e->values, e->values + self->plugin_->metric_count);
                          },
                          .artificial_stack = nullptr,
                          .traced_call_stack = nullptr,
                          .record_thread = nullptr,
                          .stitch = nullptr,
                          .name_thread = nullptr,
                          .span = nullptr,
                          .level = nullptr,
                          .describe_code = nullptr};
    void* state = plugin_->decoder_begin ? plugin_->decoder_begin(nullptr) : nullptr;
    const int rc = plugin_->decode(state, kind, payload, bytes, &sink, error, sizeof error);
    if (plugin_->decoder_end) plugin_->decoder_end(state, &sink, error, sizeof error);
    last_error_ = error;
    return rc;
  }

  void* handle_ = nullptr;
  const lumen_analysis_descriptor* plugin_ = nullptr;
  std::vector<lumen_event> events_;
  std::vector<std::vector<int64_t>> values_;  // of each event
  std::string last_error_;
};

TEST_F(SyncDecoder, DeclaresOraclesMetricsAndTheObjectsView) {
  ASSERT_EQ(plugin_->metric_count, 2u);
  EXPECT_STREQ(plugin_->metrics[0].keyword, "sync");
  EXPECT_EQ(plugin_->metrics[0].unit, LUMEN_UNIT_NANOSECONDS);
  EXPECT_STREQ(plugin_->metrics[1].keyword, "syncn");
  EXPECT_EQ(plugin_->metrics[1].unit, LUMEN_UNIT_COUNT);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(plugin_->metrics[i].flavors, LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED);
  ASSERT_EQ(plugin_->view_count, 1u);
  EXPECT_STREQ(plugin_->views[0].command, "syncobjects");
  EXPECT_STREQ(plugin_->data_file, kDataFile);
}

TEST_F(SyncDecoder, AWaitIsOneEventOfItsDuration) {
  SyncWait wait{};
  wait.request_ns = 1'000'000'007;
  wait.grant_ns = 1'043'210'011;
  wait.object = 0x5555deadbee0;
  wait.stack_id = 42;
  wait.thread_id = 4711;
  wait.object_kind = static_cast<uint16_t>(ObjectKind::kMutex);
  wait.call = static_cast<uint16_t>(Call::kMutexLock);
  ASSERT_EQ(decode(kWaitRecord, &wait, sizeof wait), 0) << last_error_;
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_EQ(values_[0][0], 43'210'004);
  EXPECT_EQ(values_[0][1], 1);
  EXPECT_EQ(events_[0].stack_id, 42u);
  EXPECT_EQ(events_[0].thread_id, 4711u);
  EXPECT_EQ(events_[0].time_ns, wait.grant_ns);
}

TEST_F(SyncDecoder, SettingsAreNoEventsAndUnknownKindsAreRefused) {
  SyncSettings settings{};
  settings.threshold_ns = 120;
  EXPECT_EQ(decode(kSettingsRecord, &settings, sizeof settings), 0);
  const char unknown[16] = {};
  EXPECT_NE(decode(77, unknown, sizeof unknown), 0);
  EXPECT_NE(last_error_.find("sync record of kind 77 is not one this lumen reads"), std::string::npos) << last_error_;
  EXPECT_TRUE(events_.empty());
}

TEST_F(SyncDecoder, MalformedRecordsAreRefusedWithAReason) {
  SyncWait wait{};
  EXPECT_NE(decode(kWaitRecord, &wait, sizeof wait - 8), 0);
  EXPECT_NE(last_error_.find("48"), std::string::npos) << last_error_;
  wait.request_ns = 10;
  wait.grant_ns = 5;
  EXPECT_NE(decode(kWaitRecord, &wait, sizeof wait), 0);
  EXPECT_NE(last_error_.find("before its request"), std::string::npos) << last_error_;
  EXPECT_TRUE(events_.empty());
}

}  // namespace
}  // namespace lumen::sync
