// gprofng's `#` argument: which of several functions of one name a command
// means (`fsingle work 2`), on twin_functions_target, whose two static
// functions `work` live in twin_a.c (called by twin_a) and twin_b.c (called
// by twin_b). Every command that takes a function name takes it.
#include <gtest/gtest.h>

#include <set>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// "twin_a" or "twin_b": the file, and so the caller, of the `work` an
// fsingle record describes.
std::string twin_of(const json& record) {
  const std::string file = record.at("source_file");
  return file.ends_with("twin_a.c") ? "twin_a" : file.ends_with("twin_b.c") ? "twin_b" : "?";
}

TEST(FunctionNumber, EveryCommandTakingAFunctionChoosesTheNumberedOne) {
  TempDir dir;
  const Collection run = collect(dir, {"-p", "on", "-states", "off"}, "twin_functions_target", {"1.0"});
  const fs::path& experiment = run.experiment;
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  const json both = er_print_json({"-fsingle", "work"}, experiment);
  ASSERT_EQ(both.at("records").size(), 2u) << both.dump();
  std::set<std::string> twins;
  for (size_t n = 1; n <= 2; ++n) {
    SCOPED_TRACE("work " + std::to_string(n));
    const json& wanted = both.at("records").at(n - 1);
    const std::string twin = twin_of(wanted);
    const std::string other = twin == "twin_a" ? "twin_b" : "twin_a";
    twins.insert(twin);
    const std::string which = std::to_string(n);

    const json single = er_print_json({"-fsingle", "work", which}, experiment);
    ASSERT_EQ(single.at("records").size(), 1u);
    EXPECT_EQ(single.at("records").at(0), wanted);

    // Source: the one file of that function.
    const json source = er_print_json({"-source", "work", which}, experiment);
    std::vector<std::string> files;
    for (const json& row : source.at("rows"))
      if (row.value("kind", "") == "file") files.push_back(row.at("name"));
    ASSERT_EQ(files.size(), 1u) << source.dump();
    // (The targets' sources are outside the build directory: a notice follows.)
    EXPECT_TRUE(files[0].substr(0, files[0].find(" (found outside ")).ends_with(twin + ".c")) << files[0];

    // Disassembly: that function alone, at its address.
    const json disasm = er_print_json({"-disasm", "work", which}, experiment);
    std::vector<std::string> addresses;
    for (const json& row : disasm.at("rows"))
      if (row.value("kind", "") == "function") addresses.push_back(row.at("address"));
    ASSERT_EQ(addresses.size(), 1u) << disasm.dump();
    EXPECT_EQ(addresses[0], wanted.at("address").get<std::string>());

    // A stack fragment of that function: called by its own file's caller.
    const std::string fragment = er_print_json({"-cprepend", "work", which}, experiment).dump();
    EXPECT_NE(fragment.find("\"" + twin + "\""), std::string::npos) << fragment;
    EXPECT_EQ(fragment.find("\"" + other + "\""), std::string::npos) << fragment;
  }
  EXPECT_EQ(twins, (std::set<std::string>{"twin_a", "twin_b"}));

  for (const char* command : {"-fsingle", "-source", "-disasm", "-cprepend"}) {
    const ProcessResult r = run_process({(bin_dir() / "er_print").string(), command, "work", "3", experiment.string()});
    EXPECT_NE(r.exit_code, 0) << command;
    EXPECT_NE(r.err.find("give 1 to 2"), std::string::npos) << command << ": " << r.err;
  }
}

}  // namespace
}  // namespace lumen::test
