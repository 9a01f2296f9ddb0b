// -F's pattern: the same answers as std::regex's POSIX extended grammar on
// what both accept, clear refusals of the rest, and linear time on the
// command lines that made std::regex's recursion overflow the target's
// stack.
#include "follow_pattern.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace lumen::metadata {
namespace {

bool matches(const std::string& pattern, const std::string& text) {
  FollowPattern compiled;
  std::string error;
  EXPECT_TRUE(compiled.compile(pattern, &error)) << pattern << ": " << error;
  return compiled.search(text.data(), text.size());
}

TEST(FollowPattern, AnswersAsPosixExtendedRegularExpressions) {
  const std::vector<std::string> patterns = {
      "sleep", "^/bin/", "\\.sh$", "a.c", "ab*c", "ab+c", "ab?c", "(ab)+c", "x|y", "^(gcc|cc1|as) ",
      "[0-9]+", "[^a-z]", "[a-]x", "[]a]", "a{2}", "a{2,}", "a{1,3}b", "(a|b){2,3}c", "^$", "[[:digit:]]{3}",
      "(a*)*b", "(a|a)*c", "x(y(z)?)*", "[.]", "\\(", "^a", "b$"};
  const std::vector<std::string> texts = {
      "",        "sleep 1",   "/bin/sh -c true", "run.sh", "abc",    "ac",    "abbbc", "ababc", "y",  "gcc -O2 x.c",
      "cc1 in",  "no digits", "a1b22c333",       "-x",     "]",      "aa",    "aaab",  "abbac", "a.b", "aaaaaaaaab",
      "xyzyz",   "(paren",    "abc$",           "ba"};
  for (const std::string& pattern : patterns) {
    const std::regex expected(pattern, std::regex::extended);
    for (const std::string& text : texts)
      EXPECT_EQ(matches(pattern, text), std::regex_search(text, expected)) << "'" << pattern << "' on '" << text << "'";
  }
}

TEST(FollowPattern, ShorthandsAndEscapes) {
  EXPECT_TRUE(matches("\\d\\d", "rank 12"));
  EXPECT_FALSE(matches("\\d\\d", "rank 1"));
  EXPECT_TRUE(matches("\\w+\\s\\w+", "mpirun -n 4"));
  EXPECT_FALSE(matches("^\\w+\\s\\w", "mpirun -n"));
  EXPECT_TRUE(matches("a\\.b", "a.b"));
  EXPECT_FALSE(matches("a\\.b", "axb"));
  EXPECT_TRUE(matches("[\\d_]+$", "run_42"));
}

TEST(FollowPattern, RefusesWhatItDoesNotReadAndSaysWhere) {
  for (const auto& [pattern, said] : std::vector<std::pair<std::string, std::string>>{
           {"(ab", "'(' without ')' at offset 3"},
           {"ab)", "')' without '(' at offset 2"},
           {"*a", "nothing to repeat at offset 0"},
           {"a{3,1}", "n below m"},
           {"a{1000}", "above 100"},
           {"[a-", "'[' without ']'"},
           {"[z-a]", "below its start"},
           {"(a)\\1", "back references are not supported"},
           {"x\\", "'\\' at the end"},
           {"(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))",
            "nested too deep"},
           {"(abcdefghij){100}(abcdefghij){100}(abcdefghij){100}", "too large a pattern"}}) {
    FollowPattern compiled;
    std::string error;
    EXPECT_FALSE(compiled.compile(pattern, &error)) << pattern;
    EXPECT_NE(error.find(said), std::string::npos) << pattern << ": " << error;
  }
}

// The argument that made the target's std::regex overflow its stack
// (40 KB), and one of several megabytes, against patterns that backtrack
// exponentially elsewhere.
TEST(FollowPattern, LongCommandLinesNeedNoStackAndNoBacktracking) {
  const std::string long_line = "prog " + std::string(4 << 20, 'a');
  EXPECT_FALSE(matches("(a*)*b", long_line));
  EXPECT_FALSE(matches("(a|aa)+$x", long_line));
  EXPECT_TRUE(matches("a{100}$", long_line));
  EXPECT_TRUE(matches("^prog a", long_line));
  const std::string forty_kb = std::string(40 * 1024, 'x') + " end";
  EXPECT_TRUE(matches("(x|y)*end", forty_kb));
}

}  // namespace
}  // namespace lumen::metadata
