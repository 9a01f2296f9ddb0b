// What every view produces, whatever the output format: lists of records
// (labelled fields) and tables of metric columns (view_table.h). This module
// alone turns a document into text, CSV or JSON, so every view writes
// numbers, quotes and escapes alike.
#pragma once

#include <string>
#include <vector>

#include "cell_text.h"
#include "view_table.h"

namespace lumen::analysis {

struct RecordField {
  std::string key;    // in CSV and JSON
  std::string label;  // in text
  std::string text;   // a text field, or a number given as text
  std::string text_form;  // when not empty, what text shows instead ("(founder)" for "")
  bool is_number = false;
  bool has_quantity = false;  // the number is `number`, written per `quantity`
  double number = 0;
  Quantity quantity;
};

struct Record {
  std::string heading;
  std::vector<RecordField> fields;
  void add(const std::string& key, const std::string& label, const std::string& text);
  // A number as the experiment recorded it (a pid, a count read from a file):
  // written as given; a JSON number when it is one, else a string.
  void add_number(const std::string& key, const std::string& label, const std::string& text);
  void add_number(const std::string& key, const std::string& label, double value, Quantity quantity = {});
};

enum class RecordLayout {
  // Text: the heading, then "label: value" lines; CSV: HEADING,key,value
  // lines; JSON: an object per record.
  Labelled,
  // Text and CSV: a line per record, a column per field; JSON: an object per
  // record.
  Columns,
  // JSON: the fields of every record as members of one object (summaries);
  // text: "label: value unit" lines; CSV: HEADING,key,value lines.
  Members,
};

struct RecordList {
  std::string json_key = "records";  // the JSON member holding the list
  std::string heading_key = "name";  // CSV column and JSON member of the heading; empty: left out
  std::string heading_label;         // text: the heading reads "LABEL: heading" (empty: the heading alone)
  RecordLayout layout = RecordLayout::Labelled;
  std::vector<Record> records;
};

struct Document {
  std::string view;
  std::string title;  // text: the first line, when not empty
  std::vector<RecordList> lists;
  // JSON: a "tables" member, each table with its title; CSV: a "table"
  // column with the title.
  std::vector<ViewTable> tables;
  bool tables_member = false;  // JSON: "tables" even when there is none
};

// A view that several plugins answer, each about data of its own (-allocs
// of a JVM with both native heap tracing and Java allocation sampling): one
// section per plugin, `data` naming the plugin, the document's title saying
// what it shows.
struct DocumentSection {
  std::string data;
  Document document;
};

// A document of labelled records under "records" (-overview, -fsummary).
Document record_document(const std::string& view, const std::string& title, std::vector<Record> records);

std::string render(const Document& document, OutputFormat format);
// Text: each section under its title; JSON: {"view", "sections": [...]},
// an object per section with "data", "title" and the members the document
// alone has; CSV: each section's lines led by a "data" column.
std::string render(const std::string& view, const std::vector<DocumentSection>& sections, OutputFormat format);
// A view that is one table: JSON {"view", "metrics", "rows"}; text led by
// the table's title.
std::string render(const ViewTable& table, OutputFormat format);

// Text of a table written as its rows come rather than held (a listing too
// long to hold), the same as render's once `widths` were widened over every
// row: the header lines' widths, widened by a row, the head (title and
// header lines), a row appended. For rows without fields nor callers.
std::vector<size_t> text_widths(const ViewTable& columns);
void widen_text_widths(std::vector<size_t>& widths, const ViewTable& columns, const ViewRow& row);
std::string text_table_head(const ViewTable& columns, const std::vector<size_t>& widths);
void append_text_table_row(std::string& out, const ViewTable& columns, const std::vector<size_t>& widths,
                           const ViewRow& row);
// The same for CSV, as render writes a document's table: its header line
// (the keys of `first_row`'s fields, none when the table has no row), then
// a row's lines appended. Tables of one document with the same header
// line are one CSV table: its header is written once.
std::string csv_table_head(const ViewTable& columns, const ViewRow* first_row);
void append_csv_table_row(std::string& out, const ViewTable& columns, const ViewRow& row);

}  // namespace lumen::analysis
