// The experiment's own statement of its format (header.yaml's `format`):
// this lumen's major version is read, whatever the minor; any other major,
// older or newer, and a header without a version, are refused naming the
// file, the version found and the one this lumen reads.
#include <gtest/gtest.h>
#include <lumen/record_format.h>

#include <string>

#include "experiment_format.h"
#include "format_error.h"
#include "test_support.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

fs::path experiment_with_format(const TempDir& dir, const std::string& format) {
  const fs::path experiment = dir.path() / "test.er";
  fs::create_directories(experiment);
  write_text(experiment / "header.yaml", format + "command: [test]\n");
  return experiment;
}

std::string format_line(unsigned major, unsigned minor) {
  return "format: {major: " + std::to_string(major) + ", minor: " + std::to_string(minor) + "}\n";
}

// The FormatError reading the header gives, or "" when it is read.
std::string refusal_of(const fs::path& experiment) {
  try {
    analysis::read_experiment_header(experiment);
  } catch (const analysis::FormatError& e) {
    return e.what();
  }
  return "";
}

TEST(ExperimentFormat, ThisLumensMajorVersionIsReadWhateverTheMinor) {
  TempDir dir;
  EXPECT_EQ(refusal_of(experiment_with_format(dir, format_line(LUMEN_FORMAT_MAJOR, LUMEN_FORMAT_MINOR))), "");
  EXPECT_EQ(refusal_of(experiment_with_format(dir, format_line(LUMEN_FORMAT_MAJOR, LUMEN_FORMAT_MINOR + 7))), "");
  EXPECT_EQ(refusal_of(experiment_with_format(dir, "format: {major: " + std::to_string(LUMEN_FORMAT_MAJOR) + "}\n")),
            "");
}

TEST(ExperimentFormat, AnOlderMajorVersionIsRefused) {
  TempDir dir;
  const fs::path experiment = experiment_with_format(dir, format_line(0, 9));
  const std::string message = refusal_of(experiment);
  EXPECT_CONTAINS(message, (experiment / "header.yaml").string() + ": written in experiment format 0.9");
  EXPECT_CONTAINS(message, "this lumen reads format " + std::to_string(LUMEN_FORMAT_MAJOR) + ".x only");
}

TEST(ExperimentFormat, ANewerMajorVersionIsRefused) {
  TempDir dir;
  const fs::path experiment = experiment_with_format(dir, format_line(LUMEN_FORMAT_MAJOR + 1, 2));
  const std::string message = refusal_of(experiment);
  EXPECT_CONTAINS(message, (experiment / "header.yaml").string() + ": written in experiment format " +
                               std::to_string(LUMEN_FORMAT_MAJOR + 1) + ".2");
  EXPECT_CONTAINS(message, "a newer lumen is needed");
}

TEST(ExperimentFormat, AHeaderWithoutANumericVersionIsRefused) {
  TempDir dir;
  EXPECT_CONTAINS(refusal_of(experiment_with_format(dir, "")), "no format version");
  EXPECT_CONTAINS(refusal_of(experiment_with_format(dir, "format: 1\n")), "no format version");
  EXPECT_CONTAINS(refusal_of(experiment_with_format(dir, "format: {major: one, minor: 0}\n")),
                  "the format version is not a pair of numbers");
  EXPECT_CONTAINS(refusal_of(experiment_with_format(dir, "format: {major: -1, minor: 0}\n")),
                  "the format version is not a pair of numbers");
}

}  // namespace
}  // namespace lumen::test
