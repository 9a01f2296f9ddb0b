// The pieces of er_print's analysis that need no target: selection lists and
// filter expressions, the sample table read from hand-built blocks, name
// styles, and text rendering of long titles.
#include <gtest/gtest.h>

#include <fstream>

#include "data_file_support.h"
#include "data_limit.h"
#include "event_selection.h"
#include "format_error.h"
#include "program_structure.h"
#include "sample_table.h"
#include "test_support.h"
#include "document.h"

namespace lumen::test {
namespace {

using namespace analysis;

// Expects `body` to throw E with a message containing `wanted`.
template <typename E, typename Body>
void expect_error(Body body, const std::string& wanted) {
  std::string message;
  EXPECT_THROW_MESSAGE(body(), E, message);
  EXPECT_CONTAINS(message, wanted);
}

TEST(NumberList, RangesAndAll) {
  const NumberList list = NumberList::parse("1, 3-5,9", "thread list");
  for (uint64_t n : {1, 3, 4, 5, 9}) EXPECT_TRUE(list.contains(n)) << n;
  for (uint64_t n : {0, 2, 6, 8, 10}) EXPECT_FALSE(list.contains(n)) << n;
  EXPECT_TRUE(NumberList::parse("all", "thread list").contains(12345));
}

TEST(NumberList, BadListsSayWhatIsWrong) {
  expect_error<SelectionError>([&] { NumberList::parse("2-x", "thread list"); }, "'2-x' is not a thread list");
  expect_error<SelectionError>([&] { NumberList::parse("5-2", "sample list"); }, "range '5-2' in the sample list runs backwards");
  expect_error<SelectionError>([&] { NumberList::parse(" ", "CPU list"); }, "an empty CPU list");
}

TEST(FilterExpression, ClausesCombine) {
  const EventSelection s = parse_filter_expression("thread in 1-2 && TIME >= 0.5 && time <= 2 && function == main");
  ASSERT_TRUE(s.threads);
  EXPECT_TRUE(s.threads->contains(2));
  EXPECT_FALSE(s.threads->contains(3));
  EXPECT_DOUBLE_EQ(*s.from_s, 0.5);
  EXPECT_DOUBLE_EQ(*s.to_s, 2.0);
  EXPECT_EQ(s.functions, std::vector<std::string>{"main"});
  EXPECT_TRUE(parse_filter_expression("none").selects_all());
  const EventSelection range = parse_filter_expression("time in 1.5-3");
  EXPECT_DOUBLE_EQ(*range.from_s, 1.5);
  EXPECT_DOUBLE_EQ(*range.to_s, 3.0);
}

TEST(FilterExpression, BadClausesAreNamed) {
  expect_error<SelectionError>([&] { parse_filter_expression("colour == red"); }, "unknown filter key 'colour'");
  expect_error<SelectionError>([&] { parse_filter_expression("thread"); }, "filter clause 'thread' is not KEY OP VALUE");
  expect_error<SelectionError>([&] { parse_filter_expression("time in 3"); }, "a time range is FROM-TO");
  expect_error<SelectionError>([&] { parse_filter_expression("time >= soon"); }, "'soon' in 'time >= soon' is not a time");
}

std::string sample_record(uint64_t time_ns, uint64_t user_ns, uint32_t reason, const std::string& name = "") {
  lumen_sample_record r{};
  r.time_ns = time_ns;
  r.user_ns = user_ns;
  r.minor_faults = time_ns / 1000;
  r.resident_bytes = 4096 * (time_ns / 1000);
  r.reason = reason;
  r.name_bytes = static_cast<uint32_t>(name.size());
  return bytes_of(r) + name;
}

// A plugin's view reads its own records: a CPU list cannot apply (said),
// a function filter is refused by name.
TEST(FilterExpression, ViewsOfRecordsSayWhatTheyCannotApply) {
  EXPECT_TRUE(record_selection_notes("leaks", parse_filter_expression("time >= 1 && thread in 2")).empty());
  const auto notes = record_selection_notes("leaks", parse_filter_expression("cpu in 0-1"));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_CONTAINS(notes[0], "-leaks: its records carry no CPU, so the CPU list (0-1) does not apply");
  expect_error<SelectionError>([] { record_selection_notes("allocs", parse_filter_expression("function == f")); },
                               "-allocs cannot apply the filter 'function == f'");
}

// collect -L: the header's flag and the log's event (with its time) make one
// sentence; without them, nothing is said.
TEST(DataLimit, ReachedSaysWhenAndWhichLimit) {
  const YAML::Node header = YAML::Load("{size_limit_bytes: 2097152, size_limit_reached: true}");
  const std::vector<YAML::Node> log = {YAML::Load("{event: start, pid: 1, time_ns: 1000000000}"),
                                       YAML::Load("{event: size_limit_reached, limit_bytes: 2097152, time_ns: 3500000000}")};
  const auto reached = data_limit_reached(header, log);
  ASSERT_TRUE(reached);
  EXPECT_EQ(reached->limit_bytes, 2097152u);
  ASSERT_TRUE(reached->after_seconds);
  EXPECT_DOUBLE_EQ(*reached->after_seconds, 2.5);
  EXPECT_CONTAINS(data_limit_sentence(*reached), "recording stopped 2.500 s after collection start: the data files "
                                                 "reached its limit of 2 MB (collect -L)");
  // An older log without the time: still said, with the time unknown.
  const auto untimed = data_limit_reached(header, {YAML::Load("{event: size_limit_reached, limit_bytes: 2097152}")});
  ASSERT_TRUE(untimed);
  EXPECT_FALSE(untimed->after_seconds);
  EXPECT_CONTAINS(data_limit_sentence(*untimed), "at a time the log does not record");
  EXPECT_FALSE(data_limit_reached(YAML::Load("{size_limit_bytes: 2097152, size_limit_reached: false}"), {log[0]}));
  EXPECT_FALSE(data_limit_reached(YAML::Load("{pid: 3}"), {}));
}

TEST(SampleTable, SamplesAreDifferencesBetweenPoints) {
  TempDir dir;
  const auto file = dir / "samples";
  // Two threads' blocks, out of time order, as the runtime may write them.
  std::ofstream(file, std::ios::binary)
      << make_block(7, {{LUMEN_RECORD_SAMPLE, sample_record(3000, 900, LUMEN_SAMPLE_API, "phase two")},
                        {LUMEN_RECORD_SAMPLE, sample_record(5000, 1500, LUMEN_SAMPLE_END)}})
      << make_block(5, {{LUMEN_RECORD_SAMPLE, sample_record(1000, 100, LUMEN_SAMPLE_START)},
                        {LUMEN_RECORD_SAMPLE, sample_record(2000, 400, LUMEN_SAMPLE_PERIODIC)}});
  SampleTable table;
  table.load(file);
  ASSERT_EQ(table.points().size(), 4u);
  ASSERT_EQ(table.samples().size(), 3u);
  const Sample& second = table.samples()[1];
  EXPECT_EQ(second.number, 2u);
  EXPECT_EQ(second.delta.time_ns, 1000u);
  EXPECT_EQ(second.delta.user_ns, 500u);
  EXPECT_EQ(second.delta.minor_faults, 1u);
  EXPECT_EQ(second.delta.resident_bytes, 4096u * 3);  // at the end, not a difference
  EXPECT_EQ(second.name, "phase two");
  EXPECT_EQ(sample_reason_word(second.reason), "API");
  // (previous point, this point]
  EXPECT_EQ(table.sample_at(1000), 0u);
  EXPECT_EQ(table.sample_at(1001), 1u);
  EXPECT_EQ(table.sample_at(2000), 1u);
  EXPECT_EQ(table.sample_at(2001), 2u);
  EXPECT_EQ(table.sample_at(5000), 3u);
  EXPECT_EQ(table.sample_at(5001), 0u);
  EXPECT_EQ(table.start_ns(), 1000u);
}

TEST(SampleTable, ARecordShorterThanItsNameIsRefusedWithTheOffset) {
  TempDir dir;
  const auto file = dir / "samples";
  std::string record = sample_record(1000, 1, LUMEN_SAMPLE_API, "abc");
  record.resize(record.size() - 2);  // name_bytes says 3
  std::ofstream(file, std::ios::binary) << make_block(1, {{LUMEN_RECORD_SAMPLE, record}});
  SampleTable table;
  expect_error<FormatError>([&] { table.load(file); }, "samples at offset 16: sample record does not hold its name");
}

TEST(NameStyle, ShortNamesDropTheParameters) {
  EXPECT_EQ(short_name("ns::f(int, char) const"), "ns::f");
  EXPECT_EQ(short_name("std::function<void (int)>::operator()(int) const"), "std::function<void (int)>::operator()");
  EXPECT_EQ(short_name("main"), "main");
  EXPECT_EQ(short_name("<static>@0x10 (libx.so)"), "<static>@0x10 (libx.so)");
}

TEST(NameStyle, GfortranModuleProceduresAreDemangled) {
  EXPECT_EQ(demangle("__kernels_MOD_smooth"), "kernels::smooth");
  EXPECT_EQ(demangle("__my_mod_MOD_step_2"), "my_mod::step_2");
  EXPECT_EQ(demangle("_ZN5shlib8lib_workEd"), "shlib::lib_work(double)");
  for (const char* plain : {"__libc_start_main", "__gmon_start__", "__x_MOD_", "___MOD_f", "MAIN__"})
    EXPECT_EQ(demangle(plain), plain);
}

TEST(NameStyle, UnscopedNamesDropNamespaceClassAndParameters) {
  EXPECT_EQ(unscoped_name("shlib::lib_work(double)"), "lib_work");
  EXPECT_EQ(unscoped_name("std::vector<a::b, std::allocator<a::b> >::push_back(a::b const&)"), "push_back");
  EXPECT_EQ(unscoped_name("kernels::smooth"), "smooth");
  EXPECT_EQ(unscoped_name("main"), "main");
  EXPECT_EQ(unscoped_name("<static>@0x10"), "<static>@0x10");
}

// What a user types names a function as -source, -fsingle and -filters take it.
TEST(NameStyle, AFunctionIsNamedWithOrWithoutItsScopeAndParameters) {
  const Function f{"shlib::lib_work(double)", "_ZN5shlib8lib_workEd", 1, 0x1000, 16, "shlib::lib_work(double)"};
  for (const char* name : {"shlib::lib_work(double)", "shlib::lib_work", "lib_work", "_ZN5shlib8lib_workEd"})
    EXPECT_TRUE(is_named(f, name)) << name;
  for (const char* name : {"lib_wor", "work", "shlib", "", "shlib::lib_work(int)"}) EXPECT_FALSE(is_named(f, name)) << name;
}

TEST(TextRendering, LongTitlesAreShownWhole) {
  ViewTable t;
  t.view = "functions";
  t.title = "Functions";
  t.columns = {{"e.leaked", "Excl.", "Bytes Leaked", LUMEN_UNIT_BYTES, false},
               {"e.sync", "Excl.", "Synchronization Wait Time", LUMEN_UNIT_NANOSECONDS, false}};
  t.name_position = 2;
  t.rows = {{"<Total>", "", {123456789, 1.5}, {}, {}}};
  const std::string text = render(t, OutputFormat::Text);
  EXPECT_CONTAINS(text, "Bytes Leaked");
  EXPECT_CONTAINS(text, "Synchronization Wait");
  EXPECT_CONTAINS(text, "123456789");
  // Values line up under the end of their titles.
  std::istringstream lines(text);
  std::string line, title_line, value_line;
  while (std::getline(lines, line)) {
    if (line.find("Bytes Leaked") != std::string::npos) title_line = line;
    if (line.find("<Total>") != std::string::npos) value_line = line;
  }
  EXPECT_EQ(title_line.find("Bytes Leaked") + std::string("Bytes Leaked").size(),
            value_line.find("123456789") + std::string("123456789").size());
}

}  // namespace
}  // namespace lumen::test
