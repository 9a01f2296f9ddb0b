// One document (labelled records, a summary, a table whose rows carry
// stacks) rendered in each output format by the one renderer every view
// uses: RFC 4180 CSV, JSON parsed back, and text with one precision per unit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "document.h"
#include "test_support.h"

namespace lumen::test {
namespace {

using analysis::Document;
using analysis::OutputFormat;
using analysis::Quantity;
using analysis::Record;
using analysis::RecordLayout;
using analysis::RecordList;
using nlohmann::json;

Document sample_document() {
  Record record;
  record.heading = "f, \"g\"";
  record.add_number("time", "Time (sec.)", 1.23456789, Quantity{LUMEN_UNIT_NANOSECONDS});
  record.add_number("share", "Share (%)", 12.3456, Quantity{LUMEN_UNIT_COUNT, true});
  record.add_number("pid", "Process id", "4242");
  record.add_number("cpus", "CPUs", "?");
  record.add("path", "Path", "/tmp/a,b\nc");
  Record summary;
  summary.add_number("bytes", "Bytes", 1048576, Quantity{LUMEN_UNIT_BYTES});
  summary.add_number("wait", "Wait", 0.5, Quantity{LUMEN_UNIT_NANOSECONDS});

  analysis::ViewTable table;
  table.title = "Leaks, by stack";
  table.stacks = true;
  table.columns = {{"count", "", "Leaks", LUMEN_UNIT_COUNT, false}, {"time", "", "Time", LUMEN_UNIT_NANOSECONDS, false}};
  table.name_position = 2;
  analysis::ViewRow row;
  row.name = "stack 1";
  row.values = {3, 0.25};
  row.stack = {{"main", "/bin/app"}, {"malloc", "libc.so.6"}};
  table.rows = {row};

  Document document = analysis::record_document("demo", "Demo", {record});
  document.lists.push_back({"summary", "", "", RecordLayout::Members, {summary}});
  document.tables = {table};
  document.tables_member = true;
  return document;
}

TEST(DocumentRender, CsvQuotesAsRfc4180Says) {
  EXPECT_EQ(analysis::render(sample_document(), OutputFormat::Csv),
            "name,key,value\n"
            "\"f, \"\"g\"\"\",time,1.23456789\n"
            "\"f, \"\"g\"\"\",share,12.3456\n"
            "\"f, \"\"g\"\"\",pid,4242\n"
            "\"f, \"\"g\"\"\",cpus,?\n"
            "\"f, \"\"g\"\"\",path,\"/tmp/a,b\nc\"\n"
            "key,value\n"
            "bytes,1048576\n"
            "wait,0.5\n"
            "table,count,time,name,load_object,stack\n"
            "\"Leaks, by stack\",3,0.25,stack 1,,main;malloc\n");
  EXPECT_EQ(analysis::csv_field("a\rb"), "\"a\rb\"");
  EXPECT_EQ(analysis::csv_field("plain text"), "plain text");
}

// Sections with the same columns (Callers, Stack Fragment, Callees) are one
// rectangular CSV table: one header, the section in the "table" column.
TEST(DocumentRender, CsvSectionsWithTheSameColumnsShareOneHeader) {
  Document document = sample_document();
  document.lists.clear();
  document.tables.push_back(document.tables.front());
  document.tables.back().title = "Callees";
  EXPECT_EQ(analysis::render(document, OutputFormat::Csv),
            "table,count,time,name,load_object,stack\n"
            "\"Leaks, by stack\",3,0.25,stack 1,,main;malloc\n"
            "Callees,3,0.25,stack 1,,main;malloc\n");
}

TEST(DocumentRender, JsonCarriesNumbersAsNumbers) {
  const std::string text = analysis::render(sample_document(), OutputFormat::Json);
  json doc;
  ASSERT_NO_THROW(doc = json::parse(text)) << text;
  EXPECT_EQ(doc.at("view"), "demo");
  const json& record = doc.at("records").at(0);
  EXPECT_EQ(record.at("name"), "f, \"g\"");
  EXPECT_DOUBLE_EQ(record.at("time").get<double>(), 1.23456789);
  EXPECT_DOUBLE_EQ(record.at("share").get<double>(), 12.3456);
  EXPECT_EQ(record.at("pid").get<int>(), 4242);
  EXPECT_EQ(record.at("cpus"), "?");  // a number the experiment did not record stays a string
  EXPECT_EQ(record.at("path"), "/tmp/a,b\nc");
  EXPECT_EQ(doc.at("summary").at("bytes").get<int64_t>(), 1048576);
  EXPECT_DOUBLE_EQ(doc.at("summary").at("wait").get<double>(), 0.5);
  const json& table = doc.at("tables").at(0);
  EXPECT_EQ(table.at("title"), "Leaks, by stack");
  EXPECT_EQ(table.at("metrics").at(1), (json{{"spec", "time"}, {"title", "Time"}, {"unit", "sec."}}));
  const json& row = table.at("rows").at(0);
  EXPECT_EQ(row.at("values").at("count").get<int>(), 3);
  EXPECT_DOUBLE_EQ(row.at("values").at("time").get<double>(), 0.25);
  ASSERT_EQ(row.at("stack").size(), 2u);
  EXPECT_EQ(row.at("stack").at(1), (json{{"function", "malloc"}, {"load_object", "libc.so.6"}}));
}

TEST(DocumentRender, TextHasOnePrecisionPerUnit) {
  const std::string text = analysis::render(sample_document(), OutputFormat::Text);
  EXPECT_EQ(text.substr(0, 6), "Demo\n\n");
  EXPECT_CONTAINS(text, "f, \"g\"\n");
  // Labels right-aligned to the longest; seconds with 3 decimals, percents 2.
  EXPECT_CONTAINS(text, "  Time (sec.): 1.235\n");
  EXPECT_CONTAINS(text, "    Share (%): 12.35\n");
  EXPECT_CONTAINS(text, "   Process id: 4242\n");
  EXPECT_CONTAINS(text, "Bytes: 1048576\n");
  EXPECT_CONTAINS(text, " Wait: 0.500 s\n");
  // The table: the same precision for seconds, the stack under its row.
  EXPECT_CONTAINS(text, "Leaks, by stack\n");
  EXPECT_CONTAINS(text, "0.250  stack 1\n");
  EXPECT_CONTAINS(text, "main (/bin/app)\n");
  EXPECT_CONTAINS(text, "malloc (libc.so.6)\n");
  EXPECT_EQ(text.find("0.250000"), std::string::npos);
}

TEST(DocumentRender, ColumnsLayoutAlignsOneLinePerRecord) {
  RecordList list{"experiments", "", "", RecordLayout::Columns, {}};
  for (const auto& [id, path] : {std::pair{1, "a.er"}, std::pair{12, "long/b.er"}}) {
    Record r;
    r.add_number("id", "ID", id);
    r.add("path", "Experiment", path);
    list.records.push_back(r);
  }
  const Document document{"exp_list", "", {list}, {}};
  EXPECT_EQ(analysis::render(document, OutputFormat::Text),
            "ID  Experiment\n"
            " 1  a.er\n"
            "12  long/b.er\n");
  EXPECT_EQ(analysis::render(document, OutputFormat::Csv), "id,path\n1,a.er\n12,long/b.er\n");
  const json doc = json::parse(analysis::render(document, OutputFormat::Json));
  EXPECT_EQ(doc.at("experiments").at(1), (json{{"id", 12}, {"path", "long/b.er"}}));
}

// A view that several plugins answer: one section each, titled by its
// data, in every format.
TEST(DocumentRender, SectionsAreTitledInTextListedInJsonAndLedByDataInCsv) {
  Document native = sample_document();
  native.lists.erase(native.lists.begin());
  native.title = "-leaks of heap data (heaptrace): traced";
  Document java = native;
  java.title = "-leaks of java data (JAVA_CLASSES): sampled";
  const std::vector<analysis::DocumentSection> sections{{"heap", native}, {"java", java}};

  const std::string text = analysis::render("leaks", sections, OutputFormat::Text);
  const size_t heap_at = text.find("-leaks of heap data (heaptrace): traced\n\n");
  const size_t java_at = text.find("\n-leaks of java data (JAVA_CLASSES): sampled\n\n");
  ASSERT_NE(heap_at, std::string::npos) << text;
  ASSERT_NE(java_at, std::string::npos) << text;
  EXPECT_LT(heap_at, text.find("Leaks, by stack"));
  EXPECT_LT(text.find("Leaks, by stack"), java_at);

  const json doc = json::parse(analysis::render("leaks", sections, OutputFormat::Json));
  EXPECT_EQ(doc.at("view"), "leaks");
  ASSERT_EQ(doc.at("sections").size(), 2u);
  EXPECT_EQ(doc.at("sections").at(1).at("data"), "java");
  EXPECT_EQ(doc.at("sections").at(1).at("title"), "-leaks of java data (JAVA_CLASSES): sampled");
  EXPECT_EQ(doc.at("sections").at(0).at("summary").at("bytes").get<int64_t>(), 1048576);
  EXPECT_EQ(doc.at("sections").at(1).at("tables").at(0).at("rows").at(0).at("name"), "stack 1");

  EXPECT_EQ(analysis::render("leaks", sections, OutputFormat::Csv),
            "data,key,value\n"
            "heap,bytes,1048576\n"
            "heap,wait,0.5\n"
            "data,table,count,time,name,load_object,stack\n"
            "heap,\"Leaks, by stack\",3,0.25,stack 1,,main;malloc\n"
            "data,key,value\n"
            "java,bytes,1048576\n"
            "java,wait,0.5\n"
            "data,table,count,time,name,load_object,stack\n"
            "java,\"Leaks, by stack\",3,0.25,stack 1,,main;malloc\n");
}

}  // namespace
}  // namespace lumen::test
