// Plugin option values: what a user writes turned into canonical values.
#include <gtest/gtest.h>

#include "option_value.h"
#include "test_support.h"

namespace lumen::test {
namespace {

using host::canonical_option_value;
using host::describe_option_values;

// Like the clock plugin's interval: 100 us to 10 s, a number alone in ms.
const lumen_option_def kInterval = {"interval", LUMEN_OPTION_DURATION, "10ms", 100'000, 10'000'000'000, 1'000'000,
                                    "help"};
// A duration whose bare numbers are microseconds, from 0 up.
const lumen_option_def kDelay = {"delay", LUMEN_OPTION_DURATION, "0", 0, 3'600'000'000'000, 1'000, "help"};
const lumen_option_def kDepth = {"depth", LUMEN_OPTION_INTEGER, "64", 1, 256, 0, "help"};
const lumen_option_def kFlag = {"follow", LUMEN_OPTION_BOOLEAN, "on", 0, 0, 0, "help"};
const lumen_option_def kName = {"name", LUMEN_OPTION_STRING, "", 0, 0, 0, "help"};

std::string value(const lumen_option_def& def, const std::string& written) {
  const host::CanonicalValue v = canonical_option_value(def, written);
  EXPECT_TRUE(v.value.has_value()) << "'" << written << "': " << v.problem;
  EXPECT_EQ(v.problem, "");
  return v.value.value_or("<refused>");
}

std::string problem(const lumen_option_def& def, const std::string& written) {
  const host::CanonicalValue v = canonical_option_value(def, written);
  EXPECT_FALSE(v.value.has_value()) << "'" << written << "' gave " << v.value.value_or("");
  return v.problem;
}

TEST(OptionValue, DurationSuffixes) {
  EXPECT_EQ(value(kInterval, "1s"), "1000000000");
  EXPECT_EQ(value(kInterval, "10ms"), "10000000");
  EXPECT_EQ(value(kInterval, "500us"), "500000");
  EXPECT_EQ(value(kInterval, "500u"), "500000");
  EXPECT_EQ(value(kInterval, "250000ns"), "250000");
  EXPECT_EQ(value(kInterval, "250000n"), "250000");
  EXPECT_EQ(value(kInterval, "3m"), "3000000");
  EXPECT_EQ(value(kInterval, "1.5ms"), "1500000");
  EXPECT_EQ(value(kInterval, ".5s"), "500000000");
  EXPECT_EQ(value(kInterval, "0.1ms"), "100000");  // the lower bound itself
  EXPECT_EQ(value(kInterval, "10s"), "10000000000");  // the upper bound itself
}

TEST(OptionValue, BareNumbersUseThePluginsUnit) {
  EXPECT_EQ(value(kInterval, "10"), "10000000");
  EXPECT_EQ(value(kInterval, "2.5"), "2500000");
  EXPECT_EQ(value(kDelay, "10"), "10000");
  EXPECT_EQ(value(kDelay, "0"), "0");
}

TEST(OptionValue, DurationOutOfRange) {
  const std::string expected = "a duration from 100us to 10s (suffix s, ms, us or ns; a number alone is in ms)";
  EXPECT_EQ(problem(kInterval, "50us"), "'50us' is out of range: " + expected);
  EXPECT_EQ(problem(kInterval, "11s"), "'11s' is out of range: " + expected);
  EXPECT_EQ(problem(kInterval, "0"), "'0' is out of range: " + expected);
  EXPECT_EQ(problem(kInterval, "99999ns"), "'99999ns' is out of range: " + expected);
  EXPECT_CONTAINS(problem(kInterval, "100000000000000000000s"), "is out of range");
}

TEST(OptionValue, NotADuration) {
  const std::string expected = "a duration from 100us to 10s (suffix s, ms, us or ns; a number alone is in ms)";
  EXPECT_EQ(problem(kInterval, "fast"), "'fast' is not " + expected);
  for (const char* text : {"", "ms", "10 ms", "10MS", "10h", "-5ms", "1.2.3ms", ".", "1e3"})
    EXPECT_CONTAINS(problem(kInterval, text), "is not a duration");
}

TEST(OptionValue, DescribesEachKind) {
  EXPECT_EQ(describe_option_values(kInterval),
            "a duration from 100us to 10s (suffix s, ms, us or ns; a number alone is in ms)");
  EXPECT_EQ(describe_option_values(kDelay),
            "a duration from 0s to 3600s (suffix s, ms, us or ns; a number alone is in us)");
  EXPECT_EQ(describe_option_values(kDepth), "an integer from 1 to 256");
  EXPECT_EQ(describe_option_values(kFlag), "on or off");
  EXPECT_EQ(describe_option_values(kName), "a string");
}

TEST(OptionValue, Integers) {
  EXPECT_EQ(value(kDepth, "1"), "1");
  EXPECT_EQ(value(kDepth, "256"), "256");
  EXPECT_EQ(problem(kDepth, "257"), "'257' is out of range: an integer from 1 to 256");
  EXPECT_EQ(problem(kDepth, "0"), "'0' is out of range: an integer from 1 to 256");
  EXPECT_EQ(problem(kDepth, "12x"), "'12x' is not an integer from 1 to 256");
  EXPECT_EQ(problem(kDepth, ""), "'' is not an integer from 1 to 256");
}

TEST(OptionValue, Booleans) {
  for (const char* yes : {"on", "true", "yes", "1"}) EXPECT_EQ(value(kFlag, yes), "1") << yes;
  for (const char* no : {"off", "false", "no", "0"}) EXPECT_EQ(value(kFlag, no), "0") << no;
  EXPECT_EQ(problem(kFlag, "maybe"), "'maybe' is not on or off");
  EXPECT_EQ(problem(kFlag, ""), "'' is not on or off");
}

TEST(OptionValue, StringsAreKeptAsWritten) {
  EXPECT_EQ(value(kName, "a b, c"), "a b, c");
  EXPECT_EQ(value(kName, ""), "");
}

}  // namespace
}  // namespace lumen::test
