// gprofng's expressions (event_expression.h) and its filter syntax beside
// the clauses -filters had before (event_selection.h).
#include <gtest/gtest.h>

#include "event_expression.h"
#include "event_selection.h"

namespace lumen::test {
namespace {

using analysis::EventExpression;
using analysis::EventTokens;
using analysis::TimestampBounds;

int64_t value(const std::string& text, const EventTokens& tokens = {}) {
  return EventExpression::parse(text).evaluate(tokens);
}

TEST(EventExpression, ArithmeticAndPrecedence) {
  EXPECT_EQ(value("1 + 2 * 3"), 7);
  EXPECT_EQ(value("(1 + 2) * 3"), 9);
  EXPECT_EQ(value("-4 + 10 % 4"), -2);
  EXPECT_EQ(value("7 / 0"), 0);
  EXPECT_EQ(value("TSTAMP / 1000", {.timestamp = 25000}), 25);
}

TEST(EventExpression, ComparisonsLogicAndIn) {
  const EventTokens t{.thread = 2, .cpu = 1, .sample = 3};
  EXPECT_EQ(value("THRID==2", t), 1);
  EXPECT_EQ(value("thrid == 3 || CPUID == 1", t), 1);
  EXPECT_EQ(value("(THRID == 3 || CPUID == 1) && SAMPLE_MAP >= 4", t), 0);
  EXPECT_EQ(value("!(THRID != 2)", t), 1);
  EXPECT_EQ(value("THRID IN (1, 2, 5)", t), 1);
  EXPECT_EQ(value("CPUID IN (0)", t), 0);
  EXPECT_TRUE(EventExpression::parse("CPUID < 4").uses_cpu());
  EXPECT_FALSE(EventExpression::parse("LWPID < 4").uses_cpu());
}

TEST(EventExpression, BadExpressionsNameTheProblem) {
  for (const char* bad : {"THRID ==", "(THRID == 2", "BOGUS > 1", "THRID IN 1,2", "2 $ 3", ""}) {
    try {
      EventExpression::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const analysis::ExpressionError& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

TEST(EventExpression, AFractionOrUnitIsNamedAsNotAWholeNumber) {
  for (const char* bad : {"TSTAMP < 0.02", "(TSTAMP > 1.5e9)", "THRID IN (1, 2.0)", "TSTAMP < 20ms"}) {
    try {
      EventExpression::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const analysis::ExpressionError& e) {
      EXPECT_NE(std::string(e.what()).find("is not a whole number: expressions take integers (TSTAMP is in "
                                           "nanoseconds)"),
                std::string::npos)
          << e.what();
    }
  }
}

// The stretch of TSTAMP an expression can hold in: what a reading may skip
// outside of, never narrower than what the expression selects.
TEST(EventExpression, TimestampBoundsHoldEveryTimeTheExpressionSelects) {
  struct Case {
    const char* text;
    std::optional<int64_t> from, to;
  };
  const Case cases[] = {
      {"TSTAMP >= 100 && TSTAMP < 200", 100, 199},
      {"100 <= TSTAMP && 200 > TSTAMP", 100, 199},
      {"TSTAMP > 100", 101, std::nullopt},
      {"TSTAMP <= 5 && THRID == 2", std::nullopt, 5},
      {"TSTAMP == 7", 7, 7},
      {"TSTAMP IN (30, 10, 20)", 10, 30},
      {"(TSTAMP < 10 || TSTAMP > 50) && TSTAMP < 100", std::nullopt, 99},
      {"TSTAMP >= 10 && TSTAMP <= 20 || TSTAMP >= 40 && TSTAMP <= 60", 10, 60},
      {"TSTAMP > -5", -4, std::nullopt},
      {"!(TSTAMP < 100)", std::nullopt, std::nullopt},
      {"TSTAMP / 1000 < 2", std::nullopt, std::nullopt},
      {"TSTAMP < 10 || THRID == 1", std::nullopt, std::nullopt},
      {"THRID == 1", std::nullopt, std::nullopt},
  };
  for (const Case& c : cases) {
    const EventExpression e = EventExpression::parse(c.text);
    const TimestampBounds b = e.timestamp_bounds();
    EXPECT_EQ(b.from_ns, c.from) << c.text;
    EXPECT_EQ(b.to_ns, c.to) << c.text;
    // Every time the expression selects lies within the bounds.
    for (int64_t t = -10; t <= 250; ++t) {
      EventTokens tokens;
      tokens.timestamp = t;
      tokens.thread = 2;
      if (e.evaluate(tokens) == 0) continue;
      if (b.from_ns) EXPECT_GE(t, *b.from_ns) << c.text;
      if (b.to_ns) EXPECT_LE(t, *b.to_ns) << c.text;
    }
  }
}

TEST(EventExpression, ALoneEqualsSignIsNamed) {
  for (const char* bad : {"THRID = 2", "(THRID = 2)", "CPUID == 1 && (THRID = 2)"}) {
    try {
      EventExpression::parse(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const analysis::ExpressionError& e) {
      EXPECT_NE(std::string(e.what()).find("'=' is not a comparison; equality is '=='"), std::string::npos)
          << e.what();
    }
  }
}

TEST(GprofngFilter, FunctionClausesAndEventExpression) {
  const auto s = analysis::parse_filter_expression(R"((FNAME("spin_b") SOME IN STACK) && THRID IN (1,2))");
  EXPECT_EQ(s.functions, std::vector<std::string>{"spin_b"});
  ASSERT_TRUE(s.expression.has_value());
  EXPECT_EQ(s.expression->evaluate({.thread = 2}), 1);
  EXPECT_EQ(s.expression->evaluate({.thread = 3}), 0);
  EXPECT_FALSE(s.selects_all());
  // The earlier clauses still read as before.
  const auto old = analysis::parse_filter_expression("thread in 1-2 && function == main");
  EXPECT_FALSE(old.expression.has_value());
  EXPECT_EQ(old.functions, std::vector<std::string>{"main"});
  EXPECT_THROW(analysis::parse_filter_expression(R"(THRID == 1 || FNAME("f") SOME IN STACK)"),
               analysis::SelectionError);
}

}  // namespace
}  // namespace lumen::test
