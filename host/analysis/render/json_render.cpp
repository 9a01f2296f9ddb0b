// JSON: one object per view; numbers as numbers (9 significant digits,
// counts whole), every string escaped.
#include <cstdlib>
#include <sstream>

#include "format_renderers.h"

namespace lumen::analysis {

namespace {

// A number recorded as text is a JSON number only when all of it is one.
bool is_json_number(const std::string& text) {
  if (text.empty() || text.find_first_of("xXnNiI") != std::string::npos) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

std::string json_value(const RecordField& f) {
  if (!f.is_number) return json_string(f.text);
  const std::string data = field_data(f);
  return f.has_quantity || is_json_number(data) ? data : json_string(data);
}

void json_row(std::ostringstream& out, const ViewTable& t, const ViewRow& row, bool nested) {
  out << "{\"name\": " << json_string(row.name) << ", \"load_object\": " << json_string(row.load_object)
      << ", \"values\": {";
  for (size_t c = 0; c < t.columns.size(); ++c)
    out << (c ? ", " : "") << json_string(t.columns[c].key) << ": "
        << data_number(row.values[c], t.columns[c].quantity());
  out << "}";
  if (t.tree) out << ", \"depth\": " << row.depth;
  if (!row.marker.empty()) out << ", \"marker\": " << json_string(row.marker);
  for (const auto& [key, value] : row.fields) out << ", " << json_string(key) << ": " << json_string(value);
  if (t.stacks) {
    out << ", \"stack\": [";
    for (size_t f = 0; f < row.stack.size(); ++f)
      out << (f ? ", " : "") << "{\"function\": " << json_string(row.stack[f].function)
          << ", \"load_object\": " << json_string(row.stack[f].load_object) << "}";
    out << "]";
  }
  if (nested) {
    for (const auto& [label, list] : {std::pair{"callers", &row.callers}, std::pair{"callees", &row.callees}}) {
      out << ", \"" << label << "\": [";
      for (size_t i = 0; i < list->size(); ++i) {
        out << (i ? ", " : "");
        json_row(out, t, (*list)[i], false);
      }
      out << "]";
    }
  }
  out << "}";
}

// "metrics": [...], "rows": [...]
void json_table_members(std::ostringstream& out, const ViewTable& t) {
  out << "\"metrics\": [";
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const ViewColumn& col = t.columns[c];
    out << (c ? ", " : "") << "{\"spec\": " << json_string(col.key)
        << ", \"title\": " << json_string(col.flavor.empty() ? col.title : col.flavor + " " + col.title)
        << ", \"unit\": " << json_string(unit_text(col.quantity())) << "}";
  }
  out << "], \"rows\": [";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    out << (r ? ",\n  " : "\n  ");
    json_row(out, t, t.rows[r], t.nested);
  }
  out << "]";
}

void json_list(std::ostringstream& out, const RecordList& list) {
  out << json_string(list.json_key) << ": ";
  if (list.layout == RecordLayout::Members) {
    out << "{";
    bool first = true;
    for (const Record& r : list.records)
      for (const RecordField& f : r.fields) {
        out << (first ? "" : ", ") << json_string(f.key) << ": " << json_value(f);
        first = false;
      }
    out << "}";
    return;
  }
  out << "[";
  for (size_t r = 0; r < list.records.size(); ++r) {
    const Record& record = list.records[r];
    out << (r ? ",\n  " : "\n  ") << "{";
    bool first = true;
    if (!list.heading_key.empty()) {
      out << json_string(list.heading_key) << ": " << json_string(record.heading);
      first = false;
    }
    for (const RecordField& f : record.fields) {
      out << (first ? "" : ", ") << json_string(f.key) << ": " << json_value(f);
      first = false;
    }
    out << "}";
  }
  out << "]";
}

}  // namespace

std::string json_view_table(const ViewTable& t) {
  std::ostringstream out;
  out << "{\"view\": " << json_string(t.view) << ", ";
  json_table_members(out, t);
  out << "}\n";
  return out.str();
}

namespace {

// The members after "view" (or a section's "data" and "title").
void json_document_members(std::ostringstream& out, const Document& document) {
  for (const RecordList& list : document.lists) {
    out << ", ";
    json_list(out, list);
  }
  // What each field's key means, in the words the text form uses, for a
  // reader that shows records to people (the analyzer's page).
  std::vector<std::pair<std::string, std::string>> labels;
  auto label = [&labels](const std::string& key, const std::string& text) {
    if (text.empty() || text == key) return;
    for (const auto& [k, v] : labels)
      if (k == key) return;
    labels.emplace_back(key, text);
  };
  for (const RecordList& list : document.lists) {
    label(list.heading_key, list.heading_label);
    for (const Record& r : list.records)
      for (const RecordField& f : r.fields) label(f.key, f.label);
  }
  if (!labels.empty()) {
    out << ", \"labels\": {";
    for (size_t i = 0; i < labels.size(); ++i)
      out << (i ? ", " : "") << json_string(labels[i].first) << ": " << json_string(labels[i].second);
    out << "}";
  }
  if (document.tables_member || !document.tables.empty()) {
    out << ", \"tables\": [";
    for (size_t t = 0; t < document.tables.size(); ++t) {
      out << (t ? ", " : "") << "{\"title\": " << json_string(document.tables[t].title) << ", ";
      json_table_members(out, document.tables[t]);
      out << "}";
    }
    out << "]";
  }
}

}  // namespace

std::string json_document(const Document& document) {
  std::ostringstream out;
  out << "{\"view\": " << json_string(document.view);
  json_document_members(out, document);
  out << "}\n";
  return out.str();
}

std::string json_sections(const std::string& view, const std::vector<DocumentSection>& sections) {
  std::ostringstream out;
  out << "{\"view\": " << json_string(view) << ", \"sections\": [";
  for (size_t s = 0; s < sections.size(); ++s) {
    out << (s ? ",\n " : "\n ") << "{\"data\": " << json_string(sections[s].data)
        << ", \"title\": " << json_string(sections[s].document.title);
    json_document_members(out, sections[s].document);
    out << "}";
  }
  out << "]}\n";
  return out.str();
}

}  // namespace lumen::analysis
