// CSV (RFC 4180): a header line of keys, then one line per row or record.
#include <sstream>

#include "format_renderers.h"

namespace lumen::analysis {

namespace {

std::string csv_head(const ViewTable& t, const ViewRow* first, const std::string* table_title,
                     const std::string* data) {
  std::ostringstream out;
  if (data) out << "data,";
  if (table_title) out << "table,";
  if (t.nested) out << "function,role,";
  for (const ViewColumn& c : t.columns) out << csv_field(c.key) << ",";
  out << "name,load_object";
  if (t.tree) out << ",depth";
  if (first)
    for (const auto& field : first->fields) out << "," << csv_field(field.first);
  if (t.stacks) out << ",stack";
  out << "\n";
  return out.str();
}

void csv_line(std::ostringstream& out, const ViewTable& t, const ViewRow& row, const std::string& function,
              const std::string& role, const std::string* table_title, const std::string* data) {
  if (data) out << csv_field(*data) << ",";
  if (table_title) out << csv_field(*table_title) << ",";
  if (t.nested) out << csv_field(function) << "," << role << ",";
  for (size_t c = 0; c < t.columns.size(); ++c) out << data_number(row.values[c], t.columns[c].quantity()) << ",";
  out << csv_field(row.name) << "," << csv_field(row.load_object);
  if (t.tree) out << "," << row.depth;
  for (const auto& field : row.fields) out << "," << csv_field(field.second);
  if (t.stacks) {
    std::string stack;
    for (const StackFrame& f : row.stack) stack += (stack.empty() ? "" : ";") + f.function;
    out << "," << csv_field(stack);
  }
  out << "\n";
}

// A row's lines: its callers, itself, its callees.
void csv_row(std::ostringstream& out, const ViewTable& t, const ViewRow& row, const std::string* table_title,
             const std::string* data) {
  for (const ViewRow& caller : row.callers) csv_line(out, t, caller, row.name, "caller", table_title, data);
  csv_line(out, t, row, row.name, t.nested ? "function" : "", table_title, data);
  for (const ViewRow& callee : row.callees) csv_line(out, t, callee, row.name, "callee", table_title, data);
}

}  // namespace

std::string csv_table(const ViewTable& t, const std::string* table_title, const std::string* data) {
  std::ostringstream out;
  out << csv_head(t, t.rows.empty() ? nullptr : &t.rows.front(), table_title, data);
  for (const ViewRow& row : t.rows) csv_row(out, t, row, table_title, data);
  return out.str();
}

std::string csv_table_head(const ViewTable& columns, const ViewRow* first_row) {
  return csv_head(columns, first_row, &columns.title, nullptr);
}

void append_csv_table_row(std::string& out, const ViewTable& columns, const ViewRow& row) {
  thread_local std::ostringstream lines;  // one a thread: a stream made a row costs more than the row
  lines.str(std::string());
  csv_row(lines, columns, row, &columns.title, nullptr);
  out += lines.str();
}

namespace {

// `data`: a section's plugin, in a leading "data" column.
std::string csv_list(const RecordList& list, const std::string* data) {
  std::ostringstream out;
  const std::string lead_key = data ? "data," : "";
  const std::string lead = data ? csv_field(*data) + "," : "";
  const bool heading = !list.heading_key.empty();
  if (list.layout == RecordLayout::Columns) {
    if (list.records.empty()) return "";
    std::string keys;
    if (heading) keys = csv_field(list.heading_key);
    for (const RecordField& f : list.records.front().fields) keys += (keys.empty() ? "" : ",") + csv_field(f.key);
    out << lead_key << keys << "\n";
    for (const Record& r : list.records) {
      std::string cells = heading ? csv_field(r.heading) : "";
      for (size_t f = 0; f < r.fields.size(); ++f)
        cells += (f == 0 && !heading ? "" : ",") + csv_field(field_data(r.fields[f]));
      out << lead << cells << "\n";
    }
    return out.str();
  }
  out << lead_key << (heading ? csv_field(list.heading_key) + "," : "") << "key,value\n";
  for (const Record& r : list.records)
    for (const RecordField& f : r.fields)
      out << lead << (heading ? csv_field(r.heading) + "," : "") << csv_field(f.key) << "," << csv_field(field_data(f)) << "\n";
  return out.str();
}

}  // namespace

std::string csv_document(const Document& document, const std::string* data) {
  std::string text;
  for (const RecordList& list : document.lists) text += csv_list(list, data);
  // Tables with the same columns are one CSV table, their title a column:
  // the header line is written once.
  std::string last_header;
  for (const ViewTable& table : document.tables) {
    std::string part = csv_table(table, &table.title, data);
    const std::string header = part.substr(0, part.find('\n') + 1);
    if (header == last_header) part.erase(0, header.size());
    last_header = header;
    text += part;
  }
  return text;
}

}  // namespace lumen::analysis
