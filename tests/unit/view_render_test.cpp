// Rendering a ViewTable as JSON (parsed back with nlohmann::json), CSV and
// text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"
#include "document.h"
#include "header_view.h"

namespace lumen::test {
namespace {

using analysis::OutputFormat;
using analysis::ViewColumn;
using analysis::ViewRow;
using analysis::ViewTable;
using nlohmann::json;

ViewTable functions_table() {
  ViewTable t;
  t.view = "functions";
  t.title = "Functions sorted by metric: Exclusive User CPU Time";
  t.columns = {{"e.user", "Excl.", "User CPU Time", LUMEN_UNIT_NANOSECONDS, false},
               {"e.%user", "Excl.", "User CPU Time", LUMEN_UNIT_NANOSECONDS, true},
               {"i.bytes", "Incl.", "Bytes", LUMEN_UNIT_BYTES, false},
               {"e.count", "Excl.", "Calls", LUMEN_UNIT_COUNT, false}};
  t.name_position = 4;
  t.rows = {{"<Total>", "", {1.5, 100.0, 4096, 12}, {}, {}},
            {"compute(int, char)", "/usr/bin/app", {1.25, 83.3333333333, 1024, 7}, {}, {}},
            {"say \"hi\"\\\n\ttab\x01", "/lib/x, y.so", {0.25, 16.6666666667, 0, 5}, {}, {}}};
  return t;
}

TEST(ViewRender, JsonHasTheDocumentedShape) {
  const std::string text = analysis::render(functions_table(), OutputFormat::Json);
  json doc;
  ASSERT_NO_THROW(doc = json::parse(text)) << text;
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.size(), 3u) << doc.dump(2);
  EXPECT_EQ(doc.at("view"), "functions");

  const json& metrics = doc.at("metrics");
  ASSERT_TRUE(metrics.is_array());
  ASSERT_EQ(metrics.size(), 4u);
  EXPECT_EQ(metrics[0], (json{{"spec", "e.user"}, {"title", "Excl. User CPU Time"}, {"unit", "sec."}}));
  EXPECT_EQ(metrics[1], (json{{"spec", "e.%user"}, {"title", "Excl. User CPU Time"}, {"unit", "%"}}));
  EXPECT_EQ(metrics[2], (json{{"spec", "i.bytes"}, {"title", "Incl. Bytes"}, {"unit", "bytes"}}));
  EXPECT_EQ(metrics[3], (json{{"spec", "e.count"}, {"title", "Excl. Calls"}, {"unit", "count"}}));

  const json& rows = doc.at("rows");
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), 3u);
  for (const json& row : rows) {
    EXPECT_EQ(row.size(), 3u) << row.dump();
    EXPECT_TRUE(row.at("name").is_string());
    EXPECT_TRUE(row.at("load_object").is_string());
    EXPECT_EQ(row.at("values").size(), 4u);
  }
  EXPECT_EQ(rows[0].at("name"), "<Total>");
  EXPECT_EQ(rows[0].at("load_object"), "");
  EXPECT_DOUBLE_EQ(rows[0].at("values").at("e.user").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(rows[0].at("values").at("e.%user").get<double>(), 100.0);
  EXPECT_EQ(rows[0].at("values").at("i.bytes").get<int64_t>(), 4096);
  EXPECT_EQ(rows[0].at("values").at("e.count").get<int64_t>(), 12);
  EXPECT_EQ(rows[1].at("name"), "compute(int, char)");
  EXPECT_EQ(rows[1].at("load_object"), "/usr/bin/app");
  EXPECT_NEAR(rows[1].at("values").at("e.%user").get<double>(), 83.3333333, 1e-6);
  // Names with quotes, backslashes and control characters survive.
  EXPECT_EQ(rows[2].at("name"), "say \"hi\"\\\n\ttab\x01");
  EXPECT_EQ(rows[2].at("load_object"), "/lib/x, y.so");
}

TEST(ViewRender, JsonOfAnEmptyTable) {
  ViewTable t;
  t.view = "objects";
  const json doc = json::parse(analysis::render(t, OutputFormat::Json));
  EXPECT_EQ(doc, (json{{"view", "objects"}, {"metrics", json::array()}, {"rows", json::array()}}));
}

TEST(ViewRender, JsonOfANestedTableCarriesCallersAndCallees) {
  ViewTable t;
  t.view = "callers-callees";
  t.nested = true;
  t.columns = {{"a.user", "Attr.", "User CPU Time", LUMEN_UNIT_NANOSECONDS, false}};
  t.name_position = 1;
  ViewRow row{"f", "/bin/app", {2.0}, {}, {}};
  row.callers.push_back({"main", "/bin/app", {2.0}, {}, {}});
  row.callees.push_back({"g", "/bin/app", {0.5}, {}, {}});
  row.callees.push_back({"h", "/lib/h.so", {1.0}, {}, {}});
  t.rows = {row};
  const json doc = json::parse(analysis::render(t, OutputFormat::Json));
  const json& f = doc.at("rows").at(0);
  EXPECT_EQ(f.at("name"), "f");
  ASSERT_EQ(f.at("callers").size(), 1u);
  EXPECT_EQ(f.at("callers")[0].at("name"), "main");
  EXPECT_FALSE(f.at("callers")[0].contains("callers"));
  ASSERT_EQ(f.at("callees").size(), 2u);
  EXPECT_EQ(f.at("callees")[1].at("load_object"), "/lib/h.so");
  EXPECT_DOUBLE_EQ(f.at("callees")[0].at("values").at("a.user").get<double>(), 0.5);
}

TEST(ViewRender, CsvQuotesNamesWithCommasAndQuotes) {
  ViewTable t;
  t.view = "functions";
  t.columns = {{"e.user", "Excl.", "User CPU Time", LUMEN_UNIT_NANOSECONDS, false},
               {"e.count", "Excl.", "Calls", LUMEN_UNIT_COUNT, false}};
  t.name_position = 2;
  t.rows = {{"compute(int, char)", "/usr/bin/app", {1.25, 7}, {}, {}},
            {"say \"hi\"", "/lib/x, y.so", {0.5, 3}, {}, {}},
            {"plain", "/lib/p.so", {0, 0}, {}, {}}};
  EXPECT_EQ(analysis::render(t, OutputFormat::Csv),
            "e.user,e.count,name,load_object\n"
            "1.25,7,\"compute(int, char)\",/usr/bin/app\n"
            "0.5,3,\"say \"\"hi\"\"\",\"/lib/x, y.so\"\n"
            "0,0,plain,/lib/p.so\n");
}

TEST(ViewRender, CsvOfANestedTableHasRoles) {
  ViewTable t;
  t.view = "callers-callees";
  t.nested = true;
  t.columns = {{"a.count", "Attr.", "Calls", LUMEN_UNIT_COUNT, false}};
  ViewRow row{"f, g", "/bin/app", {3}, {}, {}};
  row.callers.push_back({"main", "/bin/app", {3}, {}, {}});
  row.callees.push_back({"h", "/bin/app", {1}, {}, {}});
  t.rows = {row};
  EXPECT_EQ(analysis::render(t, OutputFormat::Csv),
            "function,role,a.count,name,load_object\n"
            "\"f, g\",caller,3,main,/bin/app\n"
            "\"f, g\",function,3,\"f, g\",/bin/app\n"
            "\"f, g\",callee,1,h,/bin/app\n");
}

TEST(ViewRender, TextPlacesTheNameColumn) {
  ViewTable t = functions_table();
  t.rows.resize(2);
  t.columns.resize(1);
  t.name_position = 0;
  const std::string text = analysis::render(t, OutputFormat::Text);
  EXPECT_EQ(text.substr(0, text.find('\n')), t.title);
  EXPECT_CONTAINS(text, "Excl.");
  EXPECT_CONTAINS(text, "sec.");
  EXPECT_CONTAINS(text, "User CPU");
  EXPECT_CONTAINS(text, " <Total>  ");
  EXPECT_CONTAINS(text, "1.500");
  EXPECT_CONTAINS(text, "1.250");
  // The name comes before the value on its line.
  const size_t line = text.find("compute(int, char)");
  ASSERT_NE(line, std::string::npos);
  EXPECT_LT(line, text.find("1.250"));
}

TEST(ViewRender, JsonStringEscapes) {
  EXPECT_EQ(analysis::json_string("a\"b\\c\nd\te\x02"), "\"a\\\"b\\\\c\\nd\\te\\u0002\"");
  EXPECT_EQ(analysis::json_string("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
}

// A plugin option in the header reads as its kind: a duration with its
// unit, a switch as on or off; a value of no known kind as recorded.
TEST(HeaderOptions, DurationsHaveUnitsAndSwitchesReadOnOrOff) {
  host::OptionSpec duration;
  duration.kind = LUMEN_OPTION_DURATION;
  EXPECT_EQ(analysis::readable_option(&duration, "10000000"), "10.000 ms");
  EXPECT_EQ(analysis::readable_option(&duration, "1000000000"), "1.000 s");
  EXPECT_EQ(analysis::readable_option(&duration, "500000"), "500.000 µs");
  EXPECT_EQ(analysis::readable_option(&duration, "999"), "999 ns");
  EXPECT_EQ(analysis::readable_option(&duration, "ten"), "ten");
  host::OptionSpec flag;
  flag.kind = LUMEN_OPTION_BOOLEAN;
  EXPECT_EQ(analysis::readable_option(&flag, "1"), "on");
  EXPECT_EQ(analysis::readable_option(&flag, "0"), "off");
  host::OptionSpec integer;
  integer.kind = LUMEN_OPTION_INTEGER;
  EXPECT_EQ(analysis::readable_option(&integer, "10000000"), "10000000");
  EXPECT_EQ(analysis::readable_option(nullptr, "10000000"), "10000000");
}

// A plugin's table written row by row (er_print's text of a table too long
// to hold) is the text of the table held whole: the columns as wide as the
// widest cell measured over every row first, the stacks under their rows.
TEST(ViewRender, ATableWrittenRowByRowIsTheTextOfTheTableHeld) {
  ViewTable t;
  t.view = "mpi_timeline";
  t.title = "MPI calls in time";
  t.stacks = true;
  t.columns = {{"start", "", "Start", LUMEN_UNIT_NANOSECONDS, false},
               {"bytes", "", "Bytes Sent", LUMEN_UNIT_BYTES, false},
               {"peer", "", "Peer", LUMEN_UNIT_COUNT, false}};
  t.name_position = 3;
  ViewRow narrow{"MPI_Init", "", {0.25, 0, -1}, {}, {}};
  ViewRow wide{"MPI_Send", "", {123456789.5, 1234567890123456.0, 12}, {}, {}};
  wide.stack = {{"exchange", "/usr/bin/app"}, {"main", "/usr/bin/app"}};
  t.rows = {narrow, wide, narrow};

  std::vector<size_t> widths = analysis::text_widths(t);
  for (const ViewRow& row : t.rows) analysis::widen_text_widths(widths, t, row);
  std::string written = analysis::text_table_head(t, widths);
  for (const ViewRow& row : t.rows) analysis::append_text_table_row(written, t, widths, row);
  const std::string held = analysis::render(t, OutputFormat::Text);
  EXPECT_EQ(held.substr(held.find(t.title)), written);
  EXPECT_NE(written.find("1234567890123456"), std::string::npos) << written;
  // Measured on the header lines alone, the wide row would not line up.
  std::vector<size_t> headers = analysis::text_widths(t);
  std::string unmeasured = analysis::text_table_head(t, headers);
  for (const ViewRow& row : t.rows) analysis::append_text_table_row(unmeasured, t, headers, row);
  EXPECT_NE(unmeasured, written);
}

}  // namespace
}  // namespace lumen::test
