#include <cmath>
#include <cstdio>
#include <sstream>

#include "view_table.h"

namespace lumen::analysis {

namespace {

std::string format_value(const ViewColumn& column, double value) {
  char buffer[64];
  if (column.percent) std::snprintf(buffer, sizeof buffer, "%.2f", value);
  else if (column.unit == LUMEN_UNIT_NANOSECONDS) std::snprintf(buffer, sizeof buffer, "%.3f", value);
  else std::snprintf(buffer, sizeof buffer, "%.0f", value);
  return buffer;
}

std::string json_number(const ViewColumn& column, double value) {
  char buffer[64];
  if (column.percent || column.unit == LUMEN_UNIT_NANOSECONDS) std::snprintf(buffer, sizeof buffer, "%.9g", value);
  else std::snprintf(buffer, sizeof buffer, "%.0f", value);
  return buffer;
}

std::string unit_word(const ViewColumn& column) {
  if (column.percent) return "%";
  switch (column.unit) {
    case LUMEN_UNIT_NANOSECONDS: return "sec.";
    case LUMEN_UNIT_BYTES: return "bytes";
    case LUMEN_UNIT_COUNT: return "count";
  }
  return "";
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

constexpr int kWidth = 12;

void text_row(std::ostringstream& out, const ViewTable& t, const ViewRow& row, const std::string& marker) {
  for (size_t c = 0; c <= t.columns.size(); ++c) {
    if (c == t.name_position) out << ' ' << marker << row.name << (c < t.columns.size() ? "  " : "");
    if (c < t.columns.size()) {
      char cell[64];
      std::snprintf(cell, sizeof cell, "%*s", kWidth, format_value(t.columns[c], row.values[c]).c_str());
      out << cell;
    }
  }
  out << "\n";
}

std::string render_text(const ViewTable& t) {
  std::ostringstream out;
  out << t.title << "\n\n";
  // Three header lines: flavor, title, unit; the name column heads "Name".
  auto header_line = [&](auto cell_text, const std::string& name_text) {
    for (size_t c = 0; c <= t.columns.size(); ++c) {
      if (c == t.name_position) out << "  " << name_text << (c < t.columns.size() ? "  " : "");
      if (c < t.columns.size()) {
        char cell[128];
        std::snprintf(cell, sizeof cell, "%*s", kWidth, cell_text(t.columns[c]).substr(0, kWidth - 1).c_str());
        out << cell;
      }
    }
    out << "\n";
  };
  auto short_title = [](const ViewColumn& c) {
    std::string title = c.title;
    const auto time = title.rfind(" Time");
    if (time != std::string::npos && time + 5 == title.size()) title.erase(time);
    return title;
  };
  header_line([](const ViewColumn& c) { return c.flavor; }, "Name");
  header_line(short_title, "");
  header_line(unit_word, "");
  for (const ViewRow& row : t.rows) {
    if (!t.nested) {
      text_row(out, t, row, "");
      continue;
    }
    for (const ViewRow& caller : row.callers) text_row(out, t, caller, "  ");
    text_row(out, t, row, "*");
    for (const ViewRow& callee : row.callees) text_row(out, t, callee, "  ");
    out << "\n";
  }
  return out.str();
}

std::string render_csv(const ViewTable& t) {
  std::ostringstream out;
  if (t.nested) out << "function,role,";
  for (const ViewColumn& c : t.columns) out << csv_field(c.key) << ",";
  out << "name,load_object\n";
  auto line = [&](const ViewRow& row, const std::string& function, const std::string& role) {
    if (t.nested) out << csv_field(function) << "," << role << ",";
    for (size_t c = 0; c < t.columns.size(); ++c) out << json_number(t.columns[c], row.values[c]) << ",";
    out << csv_field(row.name) << "," << csv_field(row.load_object) << "\n";
  };
  for (const ViewRow& row : t.rows) {
    for (const ViewRow& caller : row.callers) line(caller, row.name, "caller");
    line(row, row.name, t.nested ? "function" : "");
    for (const ViewRow& callee : row.callees) line(callee, row.name, "callee");
  }
  return out.str();
}

void json_row(std::ostringstream& out, const ViewTable& t, const ViewRow& row, bool nested) {
  out << "{\"name\": " << json_string(row.name) << ", \"load_object\": " << json_string(row.load_object)
      << ", \"values\": {";
  for (size_t c = 0; c < t.columns.size(); ++c)
    out << (c ? ", " : "") << json_string(t.columns[c].key) << ": " << json_number(t.columns[c], row.values[c]);
  out << "}";
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

std::string render_json(const ViewTable& t) {
  std::ostringstream out;
  out << "{\"view\": " << json_string(t.view) << ", \"metrics\": [";
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const ViewColumn& col = t.columns[c];
    out << (c ? ", " : "") << "{\"spec\": " << json_string(col.key) << ", \"title\": "
        << json_string(col.flavor + " " + col.title) << ", \"unit\": " << json_string(unit_word(col)) << "}";
  }
  out << "], \"rows\": [";
  for (size_t r = 0; r < t.rows.size(); ++r) {
    out << (r ? ",\n  " : "\n  ");
    json_row(out, t, t.rows[r], t.nested);
  }
  out << "]}\n";
  return out.str();
}

}  // namespace

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string render(const ViewTable& table, OutputFormat format) {
  switch (format) {
    case OutputFormat::Text: return render_text(table);
    case OutputFormat::Csv: return render_csv(table);
    case OutputFormat::Json: return render_json(table);
  }
  return "";
}

}  // namespace lumen::analysis
