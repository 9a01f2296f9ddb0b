// Experiments are data people send each other: the analysis tools never run
// code an experiment names, never open what is not a regular file, never
// write outside the experiment, and say what they could not read while still
// analysing the rest. Each test builds the hostile or damaged experiment.
#include <gtest/gtest.h>

#include <lumen/record_format.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "archive_index.h"
#include "hand_built_experiment.h"

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "expected to find: " << (needle) << "\n in: " << (haystack)

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

// header.yaml names a plugin that is not installed, with a directory inside
// the experiment that holds a library whose constructor would run on dlopen.
TEST(HostileExperiment, APluginDirectoryItNamesIsNeverLoaded) {
  TempDir dir;
  const fs::path planted = dir.path() / "evil.er" / "evilplug";
  const HandBuiltExperiment e = build_experiment(
      dir.path(), "evil.er", 7, "  evilplug: {version: 1.0, data_file: evil, directory: " + planted.string() + "}\n");
  fs::create_directories(planted);
  for (const char* half : {"analysis.so", "collector.so"}) fs::copy_file(LUMEN_TEST_PLANTED_PLUGIN, planted / half);
  std::ofstream(e.path / "evil") << "whatever";
  const fs::path marker = dir.path() / "planted-code-ran";
  const std::map<std::string, std::string> env{{"LUMEN_TEST_PLANTED_MARKER", marker.string()}};

  const ProcessResult header = run_tool("er_print", {"-header", e.path.string()}, env);
  EXPECT_EQ(header.exit_code, 0) << header.err;
  EXPECT_CONTAINS(header.err, "no plugin 'evilplug' is installed");
  EXPECT_CONTAINS(header.err, planted.string() + ", which is not loaded");
  const ProcessResult functions = run_tool("er_print", {"--format=json", "-functions", e.path.string()}, env);
  EXPECT_EQ(functions.exit_code, 0) << functions.err;
  // The clock data beside it is still analysed.
  EXPECT_NEAR(total_user_seconds(functions), e.cpu_seconds, 1e-9) << functions.out;
  EXPECT_FALSE(fs::exists(marker)) << "er_print ran code the experiment shipped";
}

// A data file's name comes from the header: one with a path in it would
// read a file outside the experiment, so it is left out, by name.
TEST(HostileExperiment, ADataFileNamedOutsideTheExperimentIsNotRead) {
  TempDir dir;
  const HandBuiltExperiment e =
      build_experiment(dir.path(), "outside.er", 5, "  heap: {version: 1.0, data_file: ../secret}\n");
  std::ofstream(dir.path() / "secret") << "not the experiment's";
  const ProcessResult functions = run_tool("er_print", {"--format=json", "-functions", e.path.string()});
  EXPECT_EQ(functions.exit_code, 0) << functions.err;
  EXPECT_CONTAINS(functions.err, "recorded as '../secret', which is not a file name of this experiment");
  EXPECT_NEAR(total_user_seconds(functions), e.cpu_seconds, 1e-9) << functions.out;
}

// Text in an experiment (its command, comments, load objects' paths) may
// hold escape sequences that set a terminal's title, clear it or write its
// clipboard (OSC 52): every output shows them as visible escapes, JSON by
// its own rules, so a reader still gets the text.
TEST(HostileExperiment, EscapeSequencesNeverReachTheTerminal) {
  TempDir dir;
  const std::string object = (dir.path() / "lib\x1b]52;c;cHduZWQ=\x07.so").string();
  const HandBuiltExperiment e = build_experiment(dir.path(), "escapes.er", 3, "", object);
  std::string header;
  {
    std::ifstream in(e.path / "header.yaml");
    header.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string plain_command = "command: [hand-built]";
  ASSERT_NE(header.find(plain_command), std::string::npos) << header;
  // YAML's own escapes: \e is ESC, \a BEL, \x9b the C1 control CSI.
  header.replace(header.find(plain_command), plain_command.size(),
                 "command: [\"\\e]0;owned\\a\", \"\\e[2J\\x9b\"]\ncomments: [\"\\e]52;c;cHduZWQ=\\a\"]");
  std::ofstream(e.path / "header.yaml") << header;
  const fs::path outfile = dir.path() / "out.txt";

  for (const std::string format : {"text", "csv", "json"}) {
    const ProcessResult r = run_tool("er_print", {"--format=" + format, "-header", "-functions", "-outfile",
                                                  outfile.string(), "-objects", e.path.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string file;
    {
      std::ifstream in(outfile);
      file.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::string* texts[] = {&r.out, &r.err, &file};
    for (const std::string* text : texts) {
      EXPECT_EQ(text->find('\x1b'), std::string::npos) << format << ": " << *text;
      EXPECT_EQ(text->find('\x07'), std::string::npos) << format << ": " << *text;
      EXPECT_EQ(text->find("\xc2\x9b"), std::string::npos) << format << ": " << *text;
    }
    if (format == "json") {
      EXPECT_CONTAINS(r.out, "\\u001b]0;owned\\u0007");
      EXPECT_CONTAINS(file, "lib\\u001b]52;c;cHduZWQ=\\u0007.so");
    } else {
      EXPECT_CONTAINS(r.out, "\\x1b]0;owned\\x07");
      EXPECT_CONTAINS(r.out, "\\x1b[2J\\u009b");
      EXPECT_CONTAINS(r.out, "\\x1b]52;c;cHduZWQ=\\x07");
      EXPECT_CONTAINS(file, "lib\\x1b]52;c;cHduZWQ=\\x07.so");
    }
    // The object is gone: the warning names it, escaped.
    EXPECT_CONTAINS(r.err, "lib\\x1b]52;c;cHduZWQ=\\x07.so cannot be read");
  }
}

// Metric values are signed 64-bit: samples whose sum passes INT64_MAX
// nanoseconds (only a crafted or damaged file holds them) are held at the
// largest figure in every view, never wrapped into a negative one.
TEST(HostileExperiment, SumsPastTheLargestValueAreHeldNotWrapped) {
  TempDir dir;
  const uint64_t each = 4'000'000'000'000'000'000ull;  // three make 1.2e19 ns
  const HandBuiltExperiment e = build_experiment(dir.path(), "huge.er", 3, "", "", each);
  const double largest = static_cast<double>(INT64_MAX) / 1e9;
  for (const char* view : {"-functions", "-calltree", "-objects", "-thread_list"}) {
    const ProcessResult r = run_tool("er_print", {"--format=json", view, e.path.string()});
    ASSERT_EQ(r.exit_code, 0) << view << ": " << r.err;
    const nlohmann::json table = nlohmann::json::parse(r.out);
    size_t values = 0;
    for (const auto& row : table.at("rows"))
      for (const auto& [metric, value] : row.at("values").items()) {
        if (!value.is_number()) continue;
        ++values;
        EXPECT_GE(value.get<double>(), 0) << view << " " << metric << ": " << row.dump();
        const bool percent = metric.find('%') != std::string::npos;
        EXPECT_LE(value.get<double>(), percent ? 100.0 + 1e-6 : largest + 1e-3)
            << view << " " << metric << ": " << row.dump();
      }
    EXPECT_GT(values, 0u) << view << ": " << r.out;
  }
  const ProcessResult functions = run_tool("er_print", {"--format=json", "-functions", e.path.string()});
  EXPECT_NEAR(total_user_seconds(functions), largest, 1e-3) << functions.out;
}

// A plugin directory the user names is loaded; one that is not a plugin is
// refused by name.
TEST(HostileExperiment, PluginDirectoriesComeFromTheUser) {
  TempDir dir;
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 3);
  const ProcessResult given = run_tool("er_print", {"--plugin", LUMEN_TEST_CLOCK_PLUGIN_DIR, "--format=json",
                                                    "-functions", e.path.string()});
  EXPECT_EQ(given.exit_code, 0) << given.err;
  EXPECT_NEAR(total_user_seconds(given), e.cpu_seconds, 1e-9) << given.out;
  const ProcessResult wrong = run_tool("er_print", {"--plugin", dir.path().string(), "-header", e.path.string()});
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_CONTAINS(wrong.err, dir.path().string());
}

// Opening a FIFO for reading waits for a writer; a device may never end.
// Each file an experiment holds, and a load object it names, may be one.
TEST(HostileExperiment, NonRegularFilesAreNeverOpened) {
  TempDir dir;
  const fs::path fifo = dir.path() / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 5, "", fifo.string());

  // The load object its stacks point into is a FIFO: it is not opened.
  const ProcessResult functions = run_tool("er_print", {"--format=json", "-functions", e.path.string()});
  EXPECT_EQ(functions.exit_code, 0) << functions.err;
  EXPECT_NEAR(total_user_seconds(functions), e.cpu_seconds, 1e-9) << functions.out;
  const ProcessResult archive = run_tool("er_archive", {e.path.string()});
  EXPECT_NE(archive.exit_code, 124) << "er_archive blocked on " << fifo;
  EXPECT_CONTAINS(archive.err, fifo.string());

  // The collector's log and the data file are FIFOs: named, left out.
  fs::rename(e.path / "profile", dir.path() / "profile.saved");
  ASSERT_EQ(mkfifo((e.path / "profile").c_str(), 0600), 0);
  ASSERT_EQ(mkfifo((e.path / "collector.log").c_str(), 0600), 0);
  const ProcessResult header = run_tool("er_print", {"-header", e.path.string()});
  EXPECT_EQ(header.exit_code, 0) << header.err;
  EXPECT_CONTAINS(header.err, (e.path / "profile").string() + " is a FIFO");
  EXPECT_CONTAINS(header.err, (e.path / "collector.log").string() + " is a FIFO");

  // header.yaml a FIFO, or a link to /dev/zero: refused by name at once.
  fs::remove(e.path / "header.yaml");
  ASSERT_EQ(mkfifo((e.path / "header.yaml").c_str(), 0600), 0);
  const ProcessResult fifo_header = run_tool("er_print", {"-header", e.path.string()});
  EXPECT_EQ(fifo_header.exit_code, 1) << fifo_header.err;
  EXPECT_CONTAINS(fifo_header.err, "header.yaml is a FIFO");
  fs::remove(e.path / "header.yaml");
  fs::create_symlink("/dev/zero", e.path / "header.yaml");
  const ProcessResult linked_header = run_tool("er_print", {"-header", e.path.string()});
  EXPECT_EQ(linked_header.exit_code, 1) << linked_header.err;
  EXPECT_CONTAINS(linked_header.err, "header.yaml is a symbolic link");
}

// A load object's .gnu_debuglink names a file beside it, which may be a
// FIFO: the search for its debug file opens only regular files (elfutils'
// own search would wait on the FIFO for a writer).
TEST(HostileExperiment, ADebugLinkToAFifoIsNotOpened) {
  TempDir dir;
  const fs::path object = dir.path() / "libobject.so";
  const fs::path debug = dir.path() / "libobject.debug";
  fs::copy_file(LUMEN_TEST_PLANTED_PLUGIN, object);
  fs::copy_file(LUMEN_TEST_PLANTED_PLUGIN, debug);
  // Without DWARF of its own, analysis looks for the debug file it links to.
  ASSERT_EQ(run_process({"objcopy", "--strip-debug", "--add-gnu-debuglink=" + debug.string(), object.string()}).exit_code, 0);
  fs::remove(debug);
  ASSERT_EQ(mkfifo(debug.c_str(), 0600), 0);
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 3, "", object.string());
  for (const char* view : {"-lines", "-functions"}) {
    const ProcessResult r = run_tool("er_print", {"--format=json", view, e.path.string()});
    EXPECT_EQ(r.exit_code, 0) << view << " blocked on " << debug << "\n" << r.err;
  }
}

// LUMEN_PLUGIN_PATH: a directory everyone may write to is not loaded from
// (anyone could have put a library there), and one holding something other
// than plugins has that skipped with a message; analysis goes on.
TEST(HostileExperiment, SearchPathDirectoriesThatCannotBeTrustedAreSkipped) {
  TempDir dir;
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 3);
  const fs::path open_to_all = dir.path() / "open";
  fs::create_directories(open_to_all / "evilplug");
  for (const char* half : {"analysis.so", "collector.so"})
    fs::copy_file(LUMEN_TEST_PLANTED_PLUGIN, open_to_all / "evilplug" / half);
  ASSERT_EQ(chmod(open_to_all.c_str(), 0777), 0);
  const fs::path marker = dir.path() / "planted-code-ran";
  const ProcessResult writable = run_tool("er_print", {"--format=json", "-functions", e.path.string()},
                                          {{"LUMEN_PLUGIN_PATH", open_to_all.string()},
                                           {"LUMEN_TEST_PLANTED_MARKER", marker.string()}});
  EXPECT_EQ(writable.exit_code, 0) << writable.err;
  EXPECT_CONTAINS(writable.err, open_to_all.string() + " is writable by everyone; no plugin is loaded from it");
  EXPECT_NEAR(total_user_seconds(writable), e.cpu_seconds, 1e-9) << writable.out;
  EXPECT_FALSE(fs::exists(marker)) << "a plugin was loaded from a world-writable directory";

  const fs::path mixed = dir.path() / "mixed";
  fs::create_directories(mixed / "notes");
  const ProcessResult skipped = run_tool("er_print", {"--format=json", "-functions", e.path.string()},
                                         {{"LUMEN_PLUGIN_PATH", mixed.string()}});
  EXPECT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_CONTAINS(skipped.err, (mixed / "notes").string() + " (in LUMEN_PLUGIN_PATH) is not a plugin");
  EXPECT_NEAR(total_user_seconds(skipped), e.cpu_seconds, 1e-9) << skipped.out;
}

// The directory fuzzer's first finding: a FIFO named stacks made the stack
// table throw filesystem_error; it is refused by name, without waiting.
TEST(HostileExperiment, AFifoForTheStackTableIsRefusedByName) {
  TempDir dir;
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 3);
  fs::remove(e.path / "stacks");
  ASSERT_EQ(mkfifo((e.path / "stacks").c_str(), 0600), 0);
  const ProcessResult r = run_tool("er_print", {"-functions", e.path.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_CONTAINS(r.err, (e.path / "stacks").string() + " is a FIFO");
}

// er_archive writes only inside the experiment: links planted where its
// copies and index go are replaced, never written through, and a linked
// archives/ is refused.
TEST(HostileExperiment, ArchivingNeverWritesThroughLinks) {
  TempDir dir;
  const fs::path object = dir.path() / "libobject.so";
  fs::copy_file(LUMEN_TEST_PLANTED_PLUGIN, object);  // any ELF file will do
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 2, "", object.string());
  const fs::path victim = dir.path() / "victim";
  std::ofstream(victim) << "precious";
  fs::create_directories(e.path / "archives");
  fs::create_symlink(victim, e.path / "archives" / "index.yaml");
  fs::create_symlink(victim, e.path / "archives" / ".index.yaml.tmp");
  const std::string copy_name = "libobject.so." + analysis::read_build_id(object).substr(0, 16);
  ASSERT_NE(copy_name, "libobject.so.");
  for (const std::string& name : {copy_name, "." + copy_name + ".tmp"})
    fs::create_symlink(victim, e.path / "archives" / name);
  const ProcessResult archive = run_tool("er_archive", {e.path.string()});
  EXPECT_EQ(archive.exit_code, 0) << archive.err;
  std::ifstream in(victim);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "precious");
  EXPECT_FALSE(fs::is_symlink(e.path / "archives" / "index.yaml"));
  EXPECT_FALSE(fs::is_symlink(e.path / "archives" / copy_name));
  EXPECT_EQ(fs::file_size(e.path / "archives" / copy_name), fs::file_size(object));

  // archives/ itself a link to a directory outside: nothing goes there.
  const HandBuiltExperiment other = build_experiment(dir.path(), "test.2.er", 2, "", object.string());
  const fs::path outside = dir.path() / "outside";
  fs::create_directories(outside);
  fs::create_directory_symlink(outside, other.path / "archives");
  const ProcessResult linked = run_tool("er_archive", {other.path.string()});
  EXPECT_EQ(linked.exit_code, 1);
  EXPECT_CONTAINS(linked.err, "archives is a symbolic link");
  EXPECT_TRUE(fs::is_empty(outside));
}

// er_cp and er_mv copy a link as a link, never what it points to; a FIFO
// inside is named and not opened.
TEST(HostileExperiment, CopiesKeepLinksAsLinks) {
  TempDir dir;
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 2);
  const fs::path secret = dir.path() / "secret";
  std::ofstream(secret) << "not to be copied";
  fs::create_symlink(secret, e.path / "notes");
  ASSERT_EQ(mkfifo((e.path / "pipe").c_str(), 0600), 0);
  const fs::path copy = dir.path() / "copy.er";
  const ProcessResult cp = run_tool("er_cp", {e.path.string(), copy.string()});
  EXPECT_EQ(cp.exit_code, 0) << cp.err;
  EXPECT_TRUE(fs::is_symlink(copy / "notes"));
  EXPECT_EQ(fs::read_symlink(copy / "notes"), secret);
  EXPECT_FALSE(fs::exists(fs::symlink_status(copy / "pipe")));
  EXPECT_CONTAINS(cp.err, (e.path / "pipe").string());
  EXPECT_EQ(fs::file_size(copy / "profile"), fs::file_size(e.path / "profile"));
  const ProcessResult functions = run_tool("er_print", {"--format=json", "-functions", copy.string()});
  EXPECT_NEAR(total_user_seconds(functions), e.cpu_seconds, 1e-9) << functions.err;
}

// A data file extended with a 50 GB hole: its blocks are read, the hole is
// skipped without reading its zeros (the test's time limit would catch a
// scan of 50 GB).
TEST(DamagedExperiment, AHoleIsNotScanned) {
  TempDir dir;
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 9);
  fs::resize_file(e.path / "profile", 50ull << 30);
  const ProcessResult functions = run_tool("er_print", {"--format=json", "-functions", e.path.string()});
  EXPECT_EQ(functions.exit_code, 0) << functions.err;
  EXPECT_NEAR(total_user_seconds(functions), e.cpu_seconds, 1e-9) << functions.out;
}

// A data file cut short says so, with how much of it was there; the records
// in what is left are still counted.
TEST(DamagedExperiment, ATruncatedDataFileSaysSo) {
  TempDir dir;
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 4);
  fs::resize_file(e.path / "profile", 4096);
  const ProcessResult functions = run_tool("er_print", {"--format=json", "-functions", e.path.string()});
  EXPECT_EQ(functions.exit_code, 0) << functions.err;
  EXPECT_NEAR(total_user_seconds(functions), e.cpu_seconds, 1e-9);
  EXPECT_CONTAINS(functions.err, (e.path / "profile").string() + " ended early");
  EXPECT_CONTAINS(functions.err, "declare 65536 bytes, the file holds 4096");
}

// One damaged descendant: reported by name and left out, the founder and
// the other descendants analysed.
TEST(DamagedExperiment, ABadDescendantIsLeftOut) {
  TempDir dir;
  const HandBuiltExperiment founder = build_experiment(dir.path(), "test.1.er", 3);
  const HandBuiltExperiment good = build_experiment(founder.path, "_f1.er", 2);
  const HandBuiltExperiment bad = build_experiment(founder.path, "_f2.er", 5);
  std::ofstream(bad.path / "samples", std::ios::binary) << std::string(kBlockBytes, 'x');
  const ProcessResult header = run_tool("er_print", {"-header", founder.path.string()});
  EXPECT_EQ(header.exit_code, 0) << header.err;
  EXPECT_CONTAINS(header.err, "descendant _f2.er is left out");
  const ProcessResult functions = run_tool("er_print", {"--format=json", "-functions", founder.path.string()});
  EXPECT_EQ(functions.exit_code, 0) << functions.err;
  EXPECT_NEAR(total_user_seconds(functions), founder.cpu_seconds + good.cpu_seconds, 1e-9) << functions.out;
}

// A plugin's view of an experiment that recorded none of its data says so
// instead of printing zeros as if they were measured.
// An experiment of another format version, older or newer, whether its
// header or its data blocks say so, is refused by every reader, naming the
// file (and offset), the version found and the one this lumen reads.
TEST(DamagedExperiment, AnotherFormatVersionIsRefusedByEveryReader) {
  TempDir dir;
  const std::string current = "major: " + std::to_string(LUMEN_FORMAT_MAJOR);
  const auto refused_by_all = [&](const fs::path& experiment, const std::string& expected) {
    const std::vector<std::vector<std::string>> commands = {
        {"er_print", "-functions"}, {"er_archive"}, {"er_html", "-o", (dir.path() / "html").string()}};
    for (const std::vector<std::string>& command : commands) {
      SCOPED_TRACE(command[0] + ", expecting " + expected);
      std::vector<std::string> args(command.begin() + 1, command.end());
      args.push_back(experiment.string());
      const ProcessResult r = run_tool(command[0], args);
      EXPECT_NE(r.exit_code, 0);
      EXPECT_NE(r.exit_code, 124);
      EXPECT_CONTAINS(r.err, expected);
    }
  };
  for (const unsigned major : {0u, LUMEN_FORMAT_MAJOR + 1}) {
    const std::string found =
        "written in experiment format " + std::to_string(major) + "." + std::to_string(LUMEN_FORMAT_MINOR);
    const std::string name = std::to_string(major) + ".er";
    const HandBuiltExperiment header = build_experiment(dir.path(), "header" + name, 3, "", "/bin/true");
    std::ifstream in(header.path / "header.yaml");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.replace(text.find(current), current.size(), "major: " + std::to_string(major));
    std::ofstream(header.path / "header.yaml") << text;
    refused_by_all(header.path, (header.path / "header.yaml").string() + ": " + found);

    const HandBuiltExperiment blocks = build_experiment(dir.path(), "blocks" + name, 3, "", "/bin/true");
    for (const char* file : {"stacks", "loadobjects", "profile"}) {
      std::fstream data(blocks.path / file, std::ios::in | std::ios::out | std::ios::binary);
      const uint16_t block_major = static_cast<uint16_t>(major);
      data.seekp(offsetof(lumen_block_header, format_major));
      data.write(reinterpret_cast<const char*>(&block_major), sizeof block_major);
    }
    refused_by_all(blocks.path, " at offset 0: " + found);
  }
}

TEST(MissingData, AViewOfDataNeverRecordedSaysSo) {
  TempDir dir;
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 2);
  const ProcessResult leaks = run_tool("er_print", {"-leaks", e.path.string()});
  EXPECT_EQ(leaks.exit_code, 0) << leaks.err;
  EXPECT_CONTAINS(leaks.err, "-leaks: no experiment open recorded heap data");
}

// A load object gone since the recording (moved, deleted, not archived):
// its functions can only be shown by address, and er_print says which
// object and how to keep it.
TEST(MissingData, ALoadObjectThatIsGoneIsNamed) {
  TempDir dir;
  const std::string gone = (dir.path() / "moved-away" / "libgone.so").string();
  const HandBuiltExperiment e = build_experiment(dir.path(), "test.1.er", 3, "", gone);
  const ProcessResult functions = run_tool("er_print", {"--format=json", "-functions", e.path.string()});
  EXPECT_EQ(functions.exit_code, 0) << functions.err;
  EXPECT_NEAR(total_user_seconds(functions), e.cpu_seconds, 1e-9);
  EXPECT_CONTAINS(functions.err, "load object " + gone + " cannot be read");
  EXPECT_CONTAINS(functions.err, "er_archive -A copy");
}

}  // namespace
}  // namespace lumen::test
