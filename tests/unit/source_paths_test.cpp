// SourcePaths places the file it finds against roots: a symlink inside a
// root that leads outside is outside (its real path is what counts), the
// user's -setpath/-addpath/-pathmap directories and the load objects'
// directories are roots, and only_under() refuses what lies outside.
#include <gtest/gtest.h>

#include <filesystem>

#include "source_paths.h"
#include "test_support.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using analysis::is_under;
using analysis::SourcePaths;

fs::path real(const fs::path& p) { return fs::canonical(p); }

// A project holding s.c and link.c, a symlink to another directory's s.c.
struct LinkedProject {
  TempDir project, elsewhere;
  LinkedProject() {
    write_text(elsewhere / "s.c", "outside\n");
    fs::create_symlink(elsewhere / "s.c", project / "link.c");
    write_text(project / "s.c", "inside\n");
  }
};

TEST(SourcePaths, IsUnderComparesWholeDirectoryNames) {
  EXPECT_TRUE(is_under("/home/u/proj/s.c", {"/home/u/proj"}));
  EXPECT_TRUE(is_under("/home/u/proj/sub/s.c", {"/opt", "/home/u/proj/"}));
  EXPECT_TRUE(is_under("/home/u/proj", {"/home/u/proj"}));
  EXPECT_FALSE(is_under("/home/u/proj2/s.c", {"/home/u/proj"}));
  EXPECT_FALSE(is_under("/home/u", {"/home/u/proj"}));
  EXPECT_FALSE(is_under("/etc/shadow", {}));
  EXPECT_FALSE(is_under("/etc/shadow", {""}));
}

TEST(SourcePaths, ASymlinkInsideLeadingOutsideIsOutside) {
  const LinkedProject files;
  const TempDir& project = files.project;
  SourcePaths paths;
  const auto roots = paths.roots({}, {(project / "a.out").string()});
  ASSERT_EQ(roots, std::vector<fs::path>{real(project.path())});

  const auto outside = paths.locate((project / "link.c").string(), {}, roots);
  ASSERT_TRUE(outside);
  EXPECT_TRUE(outside->outside);
  EXPECT_EQ(outside->path, project / "link.c");
  EXPECT_EQ(outside->real, real(files.elsewhere / "s.c"));
  const std::string notice = analysis::found_outside_notice(roots);
  EXPECT_NE(notice.find("found outside the directories the experiment was recorded from: " + real(project.path()).string()),
            std::string::npos) << notice;

  const auto inside = paths.locate((project / "s.c").string(), {}, roots);
  ASSERT_TRUE(inside);
  EXPECT_FALSE(inside->outside);
  EXPECT_EQ(inside->path, project / "s.c");
}

TEST(SourcePaths, RootsAreTheRecordedDirectoriesAndTheUsersOwn) {
  TempDir experiment, given, added, mapped;
  SourcePaths paths;
  // The default "$expts:." counts the experiments' directories alone.
  EXPECT_EQ(paths.roots({experiment.path()}, {"/", "/a.out", "libfoo.so", "[vdso]"}),
            std::vector<fs::path>{real(experiment.path())});
  paths.set_path("$expts:" + given.path().string());
  paths.add_path(added.path().string());
  paths.add_pathmap("/build", mapped.path().string());
  const auto roots = paths.roots({experiment.path()}, {"/usr/lib/libc.so.6", "/usr/lib/libm.so.6"});
  const std::vector<fs::path> expected{real(experiment.path()), "/usr/lib", real(given.path()), real(added.path()),
                                       real(mapped.path())};
  EXPECT_EQ(roots, expected);
  // -setpath replaces what was searched, and what was given with it.
  paths.set_path("$expts");
  EXPECT_EQ(paths.roots({}, {}), std::vector<fs::path>{real(mapped.path())});
}

TEST(SourcePaths, OnlyUnderRefusesFilesOutsideTheRoots) {
  const LinkedProject files;
  const TempDir &project = files.project, &elsewhere = files.elsewhere;
  SourcePaths paths;
  paths.set_path(project.path().string());
  // Without a restriction the file named is found wherever it is.
  EXPECT_EQ(paths.resolve((elsewhere / "s.c").string(), {}), elsewhere / "s.c");
  EXPECT_EQ(paths.resolve((project / "link.c").string(), {}), project / "link.c");

  paths.only_under({project.path()});
  // The recorded path outside is passed over for the same name in a root.
  EXPECT_EQ(paths.resolve((elsewhere / "s.c").string(), {}), real(project / "s.c"));
  // A symlink in a root leading outside is not there at all.
  EXPECT_EQ(paths.resolve((project / "link.c").string(), {}), std::nullopt);
  EXPECT_EQ(paths.resolve("/etc/passwd", {}), std::nullopt);
  const auto found = paths.locate((project / "s.c").string(), {}, {project.path()});
  ASSERT_TRUE(found);
  EXPECT_FALSE(found->outside);

  paths.only_under({});
  EXPECT_EQ(paths.resolve((project / "s.c").string(), {}), std::nullopt);
}

}  // namespace
}  // namespace lumen::test
