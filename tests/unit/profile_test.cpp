// collect's YAML profiles: their shape, and errors naming file and line.
#include <gtest/gtest.h>

#include "plan_resolution.h"  // collect's profile.h
#include "test_support.h"

namespace lumen::test {
namespace {

using collect::ProfileError;
using collect::read_profile;

class ProfileFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text, const std::string& name = "test.yaml") {
    return write_text(dir_ / name, text).string();
  }
  std::string error_of(const std::string& text) {
    const std::string path = write(text);
    std::string message;
    EXPECT_THROW_MESSAGE(read_profile(path), ProfileError, message);
    return message;
  }
  TempDir dir_;
};

TEST_F(ProfileFile, ValidProfile) {
  const std::string path = write(
      "# a comment\n"
      "description: Clock profiling, 5 ms\n"
      "plugins:\n"
      "  clock:\n"
      "    interval: 5ms\n"
      "  other: {}\n"
      "  bare:\n");
  const collect::Profile profile = read_profile(path);
  EXPECT_EQ(profile.path, path);
  EXPECT_EQ(profile.description, "Clock profiling, 5 ms");
  ASSERT_EQ(profile.plugins.size(), 3u);
  const auto& clock = profile.plugins.at("clock");
  EXPECT_EQ(clock.line, 4);
  ASSERT_EQ(clock.options.size(), 1u);
  EXPECT_EQ(clock.options.at("interval").value, "5ms");
  EXPECT_EQ(clock.options.at("interval").line, 5);
  EXPECT_EQ(profile.plugins.at("other").line, 6);
  EXPECT_TRUE(profile.plugins.at("other").options.empty());
  EXPECT_EQ(profile.plugins.at("bare").line, 7);
  EXPECT_TRUE(profile.plugins.at("bare").options.empty());
}

TEST_F(ProfileFile, NumbersAreKeptAsWritten) {
  const auto profile = read_profile(write("plugins:\n  clock:\n    interval: 20\n"));
  EXPECT_EQ(profile.plugins.at("clock").options.at("interval").value, "20");
  EXPECT_EQ(profile.description, "");
}

TEST_F(ProfileFile, EmptyFileAndEmptyPlugins) {
  EXPECT_TRUE(read_profile(write("")).plugins.empty());
  EXPECT_TRUE(read_profile(write("# only a comment\n", "comment.yaml")).plugins.empty());
  EXPECT_TRUE(read_profile(write("description: nothing\nplugins:\n", "none.yaml")).plugins.empty());
}

TEST_F(ProfileFile, UnknownTopLevelKeyNamesFileLineAndAllowedKeys) {
  const std::string message = error_of("description: x\nplugin:\n  clock: {}\n");
  EXPECT_EQ(message, (dir_ / "test.yaml").string() + ":2: unknown key 'plugin'; allowed: description, plugins");
}

TEST_F(ProfileFile, RootMustBeAMapping) {
  const std::string message = error_of("- clock\n- heap\n");
  EXPECT_CONTAINS(message, (dir_ / "test.yaml").string() + ":1: ");
  EXPECT_CONTAINS(message, "a profile is a mapping");
}

TEST_F(ProfileFile, PluginsMustBeAMapping) {
  const std::string message = error_of("description: x\nplugins: [clock]\n");
  EXPECT_CONTAINS(message, (dir_ / "test.yaml").string() + ":2: ");
  EXPECT_CONTAINS(message, "'plugins' maps plugin names to their options");
}

TEST_F(ProfileFile, PluginOptionsMustBeAMapping) {
  const std::string message = error_of("plugins:\n  clock: 10ms\n");
  EXPECT_EQ(message, (dir_ / "test.yaml").string() + ":2: the options of plugin 'clock' must be a mapping");
}

TEST_F(ProfileFile, OptionValueMustBeSingle) {
  const std::string message = error_of("plugins:\n  clock:\n    interval: [1, 2]\n");
  EXPECT_EQ(message, (dir_ / "test.yaml").string() + ":3: option 'interval' must be a single value");
}

TEST_F(ProfileFile, DescriptionMustBeSingle) {
  const std::string message = error_of("description:\n  - a\n  - b\n");
  EXPECT_CONTAINS(message, (dir_ / "test.yaml").string() + ":2: 'description' must be a single value");
}

TEST_F(ProfileFile, YamlSyntaxErrorNamesFileAndLine) {
  const std::string message = error_of("description: ok\nplugins:\n\tclock: {}\n");
  EXPECT_CONTAINS(message, (dir_ / "test.yaml").string() + ":3: not valid YAML: ");
  const std::string flow = error_of("description: ok\na: b: c\n");
  EXPECT_CONTAINS(flow, (dir_ / "test.yaml").string() + ":2: not valid YAML: ");
}

TEST_F(ProfileFile, MissingFile) {
  const std::string path = (dir_ / "absent.yaml").string();
  std::string message;
  EXPECT_THROW_MESSAGE(read_profile(path), ProfileError, message);
  EXPECT_EQ(message, path + ": cannot read the profile");
}

TEST_F(ProfileFile, ADirectoryIsNoProfile) {
  const std::string path = dir_.path().string();
  std::string message;
  EXPECT_THROW_MESSAGE(read_profile(path), ProfileError, message);
  EXPECT_EQ(message, path + ": a directory, not a profile (a YAML file, or a shipped profile's name)");
}

// YAML leaves a repeated key to the reader: the second must not silently
// replace what the first said.
TEST_F(ProfileFile, AKeyWrittenTwiceIsRefusedWithBothLines) {
  EXPECT_EQ(error_of("plugins:\n  clock: {interval: 5}\n  heap: {}\n  clock: {}\n"),
            (dir_ / "test.yaml").string() + ":4: plugin 'clock' is written twice (first at line 2)");
  EXPECT_EQ(error_of("plugins:\n  clock:\n    interval: 5\n    interval: 10\n"),
            (dir_ / "test.yaml").string() + ":4: option 'interval' is written twice (first at line 3)");
  EXPECT_EQ(error_of("description: a\nplugins: {}\ndescription: b\n"),
            (dir_ / "test.yaml").string() + ":3: key 'description' is written twice (first at line 1)");
}

}  // namespace
}  // namespace lumen::test
