// collect's command line.
#include <gtest/gtest.h>

#include "command_line.h"
#include "test_support.h"

namespace lumen::test {
namespace {

using collect::CollectRequest;
using collect::parse_command_line;
using collect::UsageError;
using Args = std::vector<std::string>;

const std::set<std::string> kFlags{"p", "H"};

std::string usage_error(const Args& args) {
  std::string message;
  EXPECT_THROW_MESSAGE(parse_command_line(args, kFlags), UsageError, message);
  return message;
}

TEST(CommandLine, EverythingAtOnce) {
  const CollectRequest r =
      parse_command_line({"-o", "x.er", "-d", "dir", "-C", "a", "-C", "b c", "-p", "hi", "--", "prog", "arg"}, kFlags);
  EXPECT_EQ(r.experiment_name, "x.er");
  EXPECT_EQ(r.directory, "dir");
  EXPECT_EQ(r.comments, (Args{"a", "b c"}));
  EXPECT_EQ(r.plugin_flags, (std::vector<std::pair<std::string, std::string>>{{"p", "hi"}}));
  EXPECT_EQ(r.target, (Args{"prog", "arg"}));
  EXPECT_FALSE(r.profile.has_value());
  EXPECT_FALSE(r.dry_run);
  EXPECT_FALSE(r.show_version);
  EXPECT_FALSE(r.show_help);
  EXPECT_EQ(r.follow, "on");
}

TEST(CommandLine, FollowDescendants) {
  EXPECT_EQ(parse_command_line({"-F", "off", "prog"}, kFlags).follow, "off");
  EXPECT_EQ(parse_command_line({"-F", "all", "prog"}, kFlags).follow, "all");
  EXPECT_EQ(parse_command_line({"-F", "=^worker[0-9]+$", "prog"}, kFlags).follow, "=^worker[0-9]+$");
  EXPECT_EQ(usage_error({"-F", "maybe", "prog"}), "-F takes on, off, all or =REGEX, not 'maybe'");
  EXPECT_EQ(usage_error({"-F", "=", "prog"}), "-F takes on, off, all or =REGEX, not '='");
  EXPECT_CONTAINS(usage_error({"-F", "=(", "prog"}), "-F: '(' is not a regular expression");
  EXPECT_EQ(usage_error({"-F"}), "option -F needs a value");
}

TEST(CommandLine, TargetStartsAtTheFirstNonOption) {
  const CollectRequest r = parse_command_line({"-n", "-p", "off", "-H", "on", "prog", "-o", "--", "x"}, kFlags);
  EXPECT_TRUE(r.dry_run);
  EXPECT_EQ(r.plugin_flags, (std::vector<std::pair<std::string, std::string>>{{"p", "off"}, {"H", "on"}}));
  EXPECT_EQ(r.target, (Args{"prog", "-o", "--", "x"}));
  EXPECT_FALSE(r.experiment_name.has_value());
}

TEST(CommandLine, DoubleDashLetsTheTargetStartWithADash) {
  EXPECT_EQ(parse_command_line({"--", "-weird"}, kFlags).target, (Args{"-weird"}));
}

TEST(CommandLine, ProfileWithOrWithoutEquals) {
  EXPECT_EQ(parse_command_line({"--profile=a.yaml", "prog"}, kFlags).profile, "a.yaml");
  EXPECT_EQ(parse_command_line({"--profile", "b.yaml", "prog"}, kFlags).profile, "b.yaml");
}

TEST(CommandLine, VersionAndHelpNeedNoTarget) {
  EXPECT_TRUE(parse_command_line({"-V"}, kFlags).show_version);
  EXPECT_TRUE(parse_command_line({"--version"}, kFlags).show_version);
  EXPECT_TRUE(parse_command_line({"--help"}, kFlags).show_help);
  EXPECT_TRUE(parse_command_line({"-help"}, kFlags).show_help);
}

TEST(CommandLine, UnknownOption) {
  EXPECT_EQ(usage_error({"-z", "prog"}), "unknown option '-z'");
  EXPECT_EQ(usage_error({"-s", "on", "prog"}), "unknown option '-s'");  // no installed plugin owns -s
  EXPECT_EQ(usage_error({"--profiles=x", "prog"}), "unknown option '--profiles=x'");
  EXPECT_EQ(usage_error({"-", "prog"}), "unknown option '-'");
}

TEST(CommandLine, MissingValue) {
  EXPECT_EQ(usage_error({"-o"}), "option -o needs a value");
  EXPECT_EQ(usage_error({"-d"}), "option -d needs a value");
  EXPECT_EQ(usage_error({"-C"}), "option -C needs a value");
  EXPECT_EQ(usage_error({"--profile"}), "option --profile needs a value");
  EXPECT_EQ(usage_error({"-p"}), "option -p needs a value");
}

TEST(CommandLine, NoTarget) {
  EXPECT_EQ(usage_error({}), "no target program given");
  EXPECT_EQ(usage_error({"-p", "hi", "-o", "x.er"}), "no target program given");
  EXPECT_EQ(usage_error({"-p", "hi", "--"}), "no target program given");
}

}  // namespace
}  // namespace lumen::test
