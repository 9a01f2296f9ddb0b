// gprofng's expressions (event_expression.h) and its filter syntax beside
// the clauses -filters had before (event_selection.h).
#include <gtest/gtest.h>

#include "event_expression.h"
#include "event_selection.h"

namespace lumen::test {
namespace {

using analysis::EventExpression;
using analysis::EventTokens;

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
