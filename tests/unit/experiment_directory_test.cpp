// Choosing and creating the experiment directory.
#include <gtest/gtest.h>
#include <unistd.h>

#include "command_line.h"
#include "experiment_directory.h"
#include "test_support.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using collect::choose_experiment_path;
using collect::create_experiment_directory;
using collect::UsageError;

std::string usage_error(const std::optional<std::string>& name, const std::optional<std::string>& directory) {
  std::string message;
  EXPECT_THROW_MESSAGE(choose_experiment_path(name, directory), UsageError, message);
  return message;
}

TEST(ExperimentName, DefaultIsTest1) {
  TempDir dir;
  EXPECT_EQ(choose_experiment_path(std::nullopt, dir.path().string()), dir / "test.1.er");
}

TEST(ExperimentName, MustEndInEr) {
  TempDir dir;
  const std::string d = dir.path().string();
  EXPECT_EQ(usage_error("run", d), "experiment name 'run' must end in .er");
  EXPECT_EQ(usage_error("run.er.txt", d), "experiment name 'run.er.txt' must end in .er");
  EXPECT_EQ(usage_error(".er", d), "experiment name '.er' must end in .er");
  EXPECT_EQ(usage_error("", d), "experiment name '' must end in .er");
  EXPECT_EQ(choose_experiment_path("a.er", d), dir / "a.er");
}

TEST(ExperimentName, NextFreeNumber) {
  TempDir dir;
  const std::string d = dir.path().string();
  fs::create_directory(dir / "test.1.er");
  EXPECT_EQ(choose_experiment_path("test.1.er", d), dir / "test.2.er");
  EXPECT_EQ(choose_experiment_path(std::nullopt, d), dir / "test.2.er");
  fs::create_directory(dir / "test.2.er");
  fs::create_directory(dir / "test.4.er");
  EXPECT_EQ(choose_experiment_path("test.1.er", d), dir / "test.3.er");
  // Asking for a free numbered name gets exactly that name.
  EXPECT_EQ(choose_experiment_path("test.7.er", d), dir / "test.7.er");
  fs::create_directory(dir / "run.10.er");
  EXPECT_EQ(choose_experiment_path("run.10.er", d), dir / "run.11.er");
  // A plain file of that name counts as taken too.
  write_text(dir / "file.1.er", "");
  EXPECT_EQ(choose_experiment_path("file.1.er", d), dir / "file.2.er");
}

TEST(ExperimentName, ExistingUnnumberedNameIsRefused) {
  TempDir dir;
  fs::create_directory(dir / "mine.er");
  EXPECT_EQ(usage_error("mine.er", dir.path().string()),
            "experiment '" + (dir / "mine.er").string() + "' exists; it is never overwritten (choose another -o name)");
}

TEST(ExperimentName, NonexistentDirectoryIsRefused) {
  TempDir dir;
  const std::string missing = (dir / "missing").string();
  EXPECT_EQ(usage_error("a.er", missing), "directory '" + missing + "' does not exist");
  const std::string file = write_text(dir / "plain", "").string();
  EXPECT_EQ(usage_error("a.er", file), "directory '" + file + "' does not exist");
}

// access(W_OK) ignores permission bits for root, so as root the check runs
// in a child that has dropped to an unprivileged user.
std::string unwritable_directory_error(const fs::path& directory) {
  if (geteuid() != 0) return usage_error("a.er", directory.string());
  return run_in_child([&]() -> std::string {
    if (setgid(65534) != 0 || setuid(65534) != 0) return "cannot drop privileges";
    try {
      choose_experiment_path("a.er", directory.string());
    } catch (const UsageError& e) {
      return e.what();
    }
    return "no error";
  });
}

TEST(ExperimentName, UnwritableDirectoryIsRefused) {
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0555), 0);
  const std::string message = unwritable_directory_error(dir.path());
  EXPECT_CONTAINS(message, "cannot write in directory '" + dir.path().string() + "'");
  EXPECT_CONTAINS(message, "Permission denied");
}

TEST(ExperimentDirectory, CreatesTheChosenPath) {
  TempDir dir;
  const fs::path created = create_experiment_directory(dir / "test.1.er");
  EXPECT_EQ(created, dir / "test.1.er");
  EXPECT_TRUE(created.is_absolute());
  EXPECT_TRUE(fs::is_directory(created));
}

TEST(ExperimentDirectory, TakesTheNextNumberWhenThePathAppearedMeanwhile) {
  TempDir dir;
  fs::create_directory(dir / "test.1.er");
  fs::create_directory(dir / "test.2.er");
  EXPECT_EQ(create_experiment_directory(dir / "test.1.er"), dir / "test.3.er");
  EXPECT_TRUE(fs::is_directory(dir / "test.3.er"));
}

TEST(ExperimentDirectory, NeverReusesAnUnnumberedName) {
  TempDir dir;
  fs::create_directory(dir / "mine.er");
  std::string message;
  EXPECT_THROW_MESSAGE(create_experiment_directory(dir / "mine.er"), UsageError, message);
  EXPECT_EQ(message, "experiment '" + (dir / "mine.er").string() + "' exists");
}

TEST(ExperimentDirectory, MissingParentIsAnError) {
  TempDir dir;
  std::string message;
  EXPECT_THROW_MESSAGE(create_experiment_directory(dir / "missing" / "a.er"), UsageError, message);
  EXPECT_CONTAINS(message, "cannot create '" + (dir / "missing" / "a.er").string() + "'");
}

}  // namespace
}  // namespace lumen::test
