// Metric and sort specifications (Oracle's e.%user:i.user:name syntax)
// against a registry built from static metric declarations.
#include <gtest/gtest.h>

#include <iterator>

#include "default_metrics.h"
#include "metric_registry.h"
#include "metric_spec.h"
#include "test_support.h"

namespace lumen::test {
namespace {

using analysis::Flavor;
using analysis::MetricColumn;
using analysis::MetricRegistry;
using analysis::MetricSelection;
using analysis::SpecError;

const lumen_metric_def kClockMetrics[] = {
    {"user", "User CPU Time", LUMEN_UNIT_NANOSECONDS,
     LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED, "CPU time", 0, 0},
};

// "ecount" starts with a flavor letter; "leaks" is exclusive only.
const lumen_metric_def kHeapMetrics[] = {
    {"ecount", "Event Count", LUMEN_UNIT_COUNT, LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE, nullptr, 0, 0},
    {"leaks", "Leaked Bytes", LUMEN_UNIT_BYTES, LUMEN_FLAVOR_EXCLUSIVE, "bytes never freed", 0, 0},
};

using Indices = std::vector<size_t>;

class MetricSpec : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(registry_.add_plugin("clock", kClockMetrics, std::size(kClockMetrics)), Indices{0});
    ASSERT_EQ(registry_.add_plugin("heap", kHeapMetrics, std::size(kHeapMetrics)), (Indices{1, 2}));
  }
  MetricSelection parse(const std::string& spec) { return analysis::parse_metric_spec(spec, registry_); }
  std::vector<std::string> keys(const MetricSelection& selection) {
    std::vector<std::string> out;
    for (const MetricColumn& c : selection.columns) out.push_back(analysis::column_key(c, registry_));
    return out;
  }
  MetricRegistry registry_;
};

using Keys = std::vector<std::string>;

TEST_F(MetricSpec, RegistryKeepsDeclarationOrderAndAddsAPluginOnce) {
  ASSERT_EQ(registry_.size(), 3u);
  EXPECT_EQ(registry_.add_plugin("clock", kClockMetrics, std::size(kClockMetrics)), Indices{0});
  EXPECT_EQ(registry_.add_plugin("heap", kHeapMetrics, std::size(kHeapMetrics)), (Indices{1, 2}));
  EXPECT_EQ(registry_.size(), 3u);
  EXPECT_EQ(registry_.find("user"), 0u);
  EXPECT_EQ(registry_.find("ecount"), 1u);
  EXPECT_EQ(registry_.find("leaks"), 2u);
  EXPECT_FALSE(registry_.find("bogus").has_value());
  const auto& user = registry_.metrics()[0];
  EXPECT_EQ(user.title, "User CPU Time");
  EXPECT_EQ(user.description, "CPU time");
  EXPECT_EQ(user.unit, LUMEN_UNIT_NANOSECONDS);
  EXPECT_EQ(registry_.metrics()[1].description, "");  // NULL description
}

TEST_F(MetricSpec, ConfigurationsOfOnePluginShareKeywordsAndAddTheirOwn) {
  // Two experiments of one plugin configured differently (hardware counters).
  const lumen_metric_def first[] = {{"cycles", "Cycles", LUMEN_UNIT_COUNT, LUMEN_FLAVOR_EXCLUSIVE, nullptr, 0, 0},
                                    {"insts", "Instructions", LUMEN_UNIT_COUNT, LUMEN_FLAVOR_EXCLUSIVE, nullptr, 0, 0}};
  const lumen_metric_def second[] = {{"branches", "Branches", LUMEN_UNIT_COUNT, LUMEN_FLAVOR_EXCLUSIVE, nullptr, 0, 0},
                                     {"cycles", "Cycles", LUMEN_UNIT_COUNT, LUMEN_FLAVOR_EXCLUSIVE, nullptr, 0, 0}};
  EXPECT_EQ(registry_.add_plugin("hwc", first, std::size(first)), (Indices{3, 4}));
  EXPECT_EQ(registry_.add_plugin("hwc", second, std::size(second)), (Indices{5, 3}));
  EXPECT_EQ(registry_.size(), 6u);
  // A keyword is one plugin's: another plugin declaring it is refused.
  EXPECT_THROW(registry_.add_plugin("other", second, 1), std::invalid_argument);
}

TEST_F(MetricSpec, ParsesFlavorVisibilityAndName) {
  const MetricSelection s = parse("e.%user:i.user:name");
  ASSERT_EQ(s.columns.size(), 3u);
  EXPECT_EQ(s.columns[0].flavor, Flavor::Exclusive);
  EXPECT_FALSE(s.columns[0].percent);
  EXPECT_EQ(s.columns[1].flavor, Flavor::Exclusive);
  EXPECT_TRUE(s.columns[1].percent);
  EXPECT_EQ(s.columns[2].flavor, Flavor::Inclusive);
  EXPECT_FALSE(s.columns[2].percent);
  for (const MetricColumn& c : s.columns) EXPECT_EQ(c.metric, 0u);
  EXPECT_EQ(s.name_position, 3u);
  EXPECT_EQ(keys(s), (Keys{"e.user", "e.%user", "i.user"}));
}

TEST_F(MetricSpec, PercentAloneAndPlus) {
  EXPECT_EQ(keys(parse("i%user")), (Keys{"i.%user"}));
  EXPECT_EQ(keys(parse("e+user")), (Keys{"e.user"}));
  EXPECT_EQ(keys(parse("a.user")), (Keys{"a.user"}));
}

TEST_F(MetricSpec, KeywordWithoutFlavorMeansExclusiveAndInclusive) {
  EXPECT_EQ(keys(parse("user")), (Keys{"e.user", "i.user"}));
  EXPECT_EQ(keys(parse(".%user")), (Keys{"e.user", "e.%user", "i.user", "i.%user"}));
}

TEST_F(MetricSpec, SeveralFlavorLetters) {
  EXPECT_EQ(keys(parse("ei.user")), (Keys{"e.user", "i.user"}));
  EXPECT_EQ(keys(parse("eia.user")), (Keys{"e.user", "i.user", "a.user"}));
}

TEST_F(MetricSpec, KeywordStartingWithAFlavorLetter) {
  EXPECT_EQ(keys(parse("ecount")), (Keys{"e.ecount", "i.ecount"}));
  EXPECT_EQ(keys(parse("i.ecount")), (Keys{"i.ecount"}));
  const MetricSelection s = parse("e.ecount");
  ASSERT_EQ(s.columns.size(), 1u);
  EXPECT_EQ(s.columns[0].metric, 1u);
}

TEST_F(MetricSpec, HiddenMetricsAddNoColumns) {
  EXPECT_TRUE(parse("!user").columns.empty());
  EXPECT_TRUE(parse("e!user").columns.empty());
  EXPECT_EQ(keys(parse("e.user:i!user:e.leaks")), (Keys{"e.user", "e.leaks"}));
  // Hidden still names a metric that must exist.
  EXPECT_THROW(parse("!bogus"), SpecError);
}

TEST_F(MetricSpec, NamePosition) {
  EXPECT_EQ(parse("name:e.user:i.user").name_position, 0u);
  EXPECT_EQ(parse("e.user:name:i.user").name_position, 1u);
  EXPECT_EQ(parse("e.%user:name:i.user").name_position, 2u);
  EXPECT_EQ(parse("e.user:i.user").name_position, 2u);  // no name: after every column
  EXPECT_EQ(parse("name").columns.size(), 0u);
  EXPECT_EQ(parse("e.user::i.user").columns.size(), 2u);  // empty items are skipped
}

// As gprofng: percentages only for the metric that sorts by default (the first).
TEST_F(MetricSpec, DefaultSpecShowsOfferedFlavorsWithPercentsForTheSortMetric) {
  const std::string spec = analysis::default_metric_spec(registry_);
  EXPECT_EQ(spec, "e.%user:i.%user:e.ecount:i.ecount:e.leaks:name");
  const MetricSelection s = parse(spec);
  EXPECT_EQ(keys(s), (Keys{"e.user", "e.%user", "i.user", "i.%user", "e.ecount", "i.ecount", "e.leaks"}));
  EXPECT_EQ(s.name_position, s.columns.size());
  EXPECT_EQ(analysis::default_metric_spec(MetricRegistry()), "name");
}

// What plugins declare for the default list: a metric hidden by default
// shows only when named; default flavors narrow what the list shows.
const lumen_metric_def kDeclaredDefaults[] = {
    {"totalcpu", "Total CPU Time", LUMEN_UNIT_NANOSECONDS, LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE, nullptr},
    {"system", "System CPU Time", LUMEN_UNIT_NANOSECONDS, LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE, nullptr, 0,
     1},
    {"allocs", "Allocations", LUMEN_UNIT_COUNT, LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE, nullptr,
     LUMEN_FLAVOR_INCLUSIVE},
};

TEST(DefaultMetrics, PluginsDeclareHiddenMetricsAndDefaultFlavors) {
  MetricRegistry registry;
  registry.add_plugin("p", kDeclaredDefaults, std::size(kDeclaredDefaults));
  const std::string spec = analysis::default_metric_spec(registry);
  EXPECT_EQ(spec, "e.%totalcpu:i.%totalcpu:i.allocs:name");
  // Named, a hidden metric and an undeclared flavor show as any other.
  const MetricSelection named = analysis::parse_metric_spec("e.system:e.allocs:name", registry);
  ASSERT_EQ(named.columns.size(), 2u);
  EXPECT_EQ(analysis::column_key(named.columns[0], registry), "e.system");
  EXPECT_EQ(analysis::column_key(named.columns[1], registry), "e.allocs");
  // rc files: `any` leaves hidden metrics hidden and gives default flavors;
  // a hidden metric named there shows.
  EXPECT_EQ(analysis::default_metric_spec_from({"ei.totalcpu", ".any"}, registry),
            "e.totalcpu:i.totalcpu:e!system:i!system:i.allocs");
  EXPECT_EQ(analysis::default_metric_spec_from({"e.system:name"}, registry), "e.system:name");
}

// Every item named shows, in the order named: a second flavor of a metric
// named before is not dropped, and a metric hidden by an earlier line (as
// gprofng's rc file hides the CPU time's parts) shows where a later line
// names it.
TEST(DefaultMetrics, EveryItemNamedShowsInOrder) {
  MetricRegistry registry;
  registry.add_plugin("p", kDeclaredDefaults, std::size(kDeclaredDefaults));
  EXPECT_EQ(analysis::default_metric_spec_from({"e.%system:i.system:name"}, registry), "e.%system:i.system:name");
  EXPECT_EQ(analysis::default_metric_spec_from({"ei%.totalcpu", "i!.system:e!.system", "e.%system:i.system:name"},
                                               registry),
            "e%.totalcpu:i%.totalcpu:e.%system:i.system:name");
  // Hidden by a later line: the later one stands.
  EXPECT_EQ(analysis::default_metric_spec_from({"e.totalcpu:i.totalcpu", "i!totalcpu"}, registry),
            "e.totalcpu:i!totalcpu");
}

// The sort a defaults file gives is a column shown: an item naming a
// metric not shown is passed over.
TEST(DefaultMetrics, DefaultSortIsAColumnShown) {
  MetricRegistry registry;
  registry.add_plugin("p", kDeclaredDefaults, std::size(kDeclaredDefaults));
  const MetricSelection shown = analysis::parse_metric_spec("e.%totalcpu:i.allocs:name", registry);
  EXPECT_EQ(analysis::default_sort_spec_from({"i.system:i.allocs"}, registry, shown), "i.allocs");
  EXPECT_EQ(analysis::default_sort_spec_from({"e.system"}, registry, shown), std::nullopt);
  EXPECT_EQ(analysis::default_sort_spec_from({"i.totalcpu:name"}, registry, shown), "name");
  EXPECT_EQ(analysis::default_sort_spec_from({"totalcpu"}, registry, shown), "e.totalcpu");
}

// Experiments configured differently are shown together: a metric one of
// them shows is shown, with the flavors either shows.
TEST(DefaultMetrics, ConfigurationsOfOneMetricCombine) {
  const lumen_metric_def hidden[] = {
      {"sleep", "Sleep Time", LUMEN_UNIT_NANOSECONDS, LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE, nullptr,
       LUMEN_FLAVOR_INCLUSIVE, 1}};
  const lumen_metric_def shown[] = {
      {"sleep", "Sleep Time", LUMEN_UNIT_NANOSECONDS, LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE, nullptr,
       LUMEN_FLAVOR_EXCLUSIVE, 0}};
  MetricRegistry registry;
  registry.add_plugin("states", hidden, 1);
  EXPECT_EQ(analysis::default_metric_spec(registry), "name");
  registry.add_plugin("states", shown, 1);
  EXPECT_EQ(analysis::default_metric_spec(registry), "e.%sleep:i.%sleep:name");
}

TEST_F(MetricSpec, UnknownMetricListsAvailableOnes) {
  std::string message;
  EXPECT_THROW_MESSAGE(parse("e.user:i.bogus"), SpecError, message);
  EXPECT_CONTAINS(message, "unknown metric 'bogus'");
  EXPECT_CONTAINS(message, "'i.bogus'");
  EXPECT_CONTAINS(message, "available: user, ecount, leaks");
}

TEST_F(MetricSpec, UnknownMetricWithNoMetricsAtAll) {
  std::string message;
  EXPECT_THROW_MESSAGE(analysis::parse_metric_spec("e.user", MetricRegistry()), SpecError, message);
  EXPECT_CONTAINS(message, "available: none");
}

TEST_F(MetricSpec, FlavorNotOffered) {
  std::string message;
  EXPECT_THROW_MESSAGE(parse("i.leaks"), SpecError, message);
  EXPECT_EQ(message, "metric 'leaks' has no Inclusive flavor");
  EXPECT_THROW_MESSAGE(parse("a.ecount"), SpecError, message);
  EXPECT_EQ(message, "metric 'ecount' has no Attributed flavor");
}

TEST_F(MetricSpec, SortSpecs) {
  auto sort = [&](const std::string& spec) { return analysis::parse_sort_spec(spec, registry_); };
  const auto inclusive = sort("i.user");
  EXPECT_FALSE(inclusive.by_name);
  EXPECT_EQ(inclusive.flavor, Flavor::Inclusive);
  EXPECT_EQ(inclusive.metric, 0u);

  const auto bare = sort("user");
  EXPECT_FALSE(bare.by_name);
  EXPECT_EQ(bare.flavor, Flavor::Exclusive);
  EXPECT_EQ(bare.metric, 0u);

  EXPECT_TRUE(sort("name").by_name);

  const auto exclusive = sort("e.leaks");
  EXPECT_EQ(exclusive.flavor, Flavor::Exclusive);
  EXPECT_EQ(exclusive.metric, 2u);

  EXPECT_EQ(sort("a.user").flavor, Flavor::Attributed);
  EXPECT_EQ(sort("i.%ecount").metric, 1u);
  EXPECT_EQ(sort("i.%ecount").flavor, Flavor::Inclusive);
  EXPECT_EQ(sort("ecount").metric, 1u);  // keyword starting with a flavor letter
  EXPECT_EQ(sort("ecount").flavor, Flavor::Exclusive);

  std::string message;
  EXPECT_THROW_MESSAGE(sort("i.bogus"), SpecError, message);
  EXPECT_CONTAINS(message, "unknown metric 'bogus'");
  EXPECT_CONTAINS(message, "available: user, ecount, leaks");
}

// As Oracle's sort command: of several items the first shown sorts; none
// shown, none does (the view's default sort applies).
TEST_F(MetricSpec, SortIsAColumnShown) {
  const MetricSelection shown = parse("e.%user:i.ecount:name");
  auto key = [&](const std::string& spec) { return analysis::visible_sort_key(spec, shown, registry_); };
  ASSERT_TRUE(key("i.user:i.ecount"));
  EXPECT_EQ(key("i.user:i.ecount")->metric, 1u);
  EXPECT_EQ(key("i.user:i.ecount")->flavor, Flavor::Inclusive);
  EXPECT_EQ(key("user")->flavor, Flavor::Exclusive);  // shown as a percentage only
  EXPECT_TRUE(key("i.user:-name")->by_name);
  EXPECT_TRUE(key("-name")->reverse);
  EXPECT_FALSE(key("i.user:e.leaks").has_value());
  EXPECT_THROW(key("i.user:e.bogus"), SpecError);
}

TEST(MetricSpecWords, FlavorLettersAndWords) {
  EXPECT_EQ(analysis::flavor_letter(Flavor::Exclusive), 'e');
  EXPECT_EQ(analysis::flavor_letter(Flavor::Inclusive), 'i');
  EXPECT_EQ(analysis::flavor_letter(Flavor::Attributed), 'a');
  EXPECT_EQ(analysis::flavor_word(Flavor::Exclusive), "Exclusive");
  EXPECT_EQ(analysis::flavor_word(Flavor::Inclusive), "Inclusive");
  EXPECT_EQ(analysis::flavor_word(Flavor::Attributed), "Attributed");
}

TEST_F(MetricSpec, ReverseSortAndGprofngKeywords) {
  const analysis::SortKey reversed = analysis::parse_sort_spec("-e.user", registry_);
  EXPECT_TRUE(reversed.reverse);
  EXPECT_EQ(reversed.metric, 0u);
  EXPECT_FALSE(analysis::parse_sort_spec("e.user", registry_).reverse);
  EXPECT_TRUE(analysis::parse_sort_spec("-name", registry_).by_name);
  // "all": every metric with the flavors asked for; "leaks" has no inclusive.
  EXPECT_EQ(keys(parse("e.all")), (Keys{"e.user", "e.ecount", "e.leaks"}));
  EXPECT_EQ(keys(parse("i%all")), (Keys{"i.%user", "i.%ecount"}));
  EXPECT_EQ(keys(parse("default")), keys(parse(analysis::default_metric_spec(registry_))));
  EXPECT_THROW(parse("hwc"), SpecError);  // no hardware counters here
  const MetricSelection facts = parse("e.user:size:!address:name");
  EXPECT_EQ(keys(facts), Keys{"e.user"});
  EXPECT_TRUE(facts.show_size);
  EXPECT_FALSE(facts.show_address);
}

}  // namespace
}  // namespace lumen::test
