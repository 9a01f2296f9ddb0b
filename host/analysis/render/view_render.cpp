#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "metric_registry.h"
#include "view_table.h"

namespace lumen::analysis {

namespace {

std::string format_value(const ViewColumn& column, double value) {
  char buffer[64];
  if (column.percent) std::snprintf(buffer, sizeof buffer, "%.2f", value);
  else if (column.unit == LUMEN_UNIT_NANOSECONDS || column.unit == LUMEN_UNIT_RATIO)
    std::snprintf(buffer, sizeof buffer, "%.3f", value);
  else std::snprintf(buffer, sizeof buffer, "%.0f", value);
  return buffer;
}

std::string json_number(const ViewColumn& column, double value) {
  char buffer[64];
  if (column.percent || column.unit == LUMEN_UNIT_NANOSECONDS || column.unit == LUMEN_UNIT_RATIO)
    std::snprintf(buffer, sizeof buffer, "%.9g", value);
  else std::snprintf(buffer, sizeof buffer, "%.0f", value);
  return buffer;
}

std::string column_unit(const ViewColumn& column) { return column.percent ? "%" : unit_word(column.unit); }

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

constexpr size_t kMinWidth = 12;

// A metric title as the column shows it: "User CPU Time" reads "User CPU"
// under a "sec." unit line.
std::string short_title(const ViewColumn& c) {
  std::string title = c.title;
  const auto time = title.rfind(" Time");
  if (time != std::string::npos && time + 5 == title.size()) title.erase(time);
  return title;
}

// Each column is as wide as its longest header line, so no title is cut.
std::vector<size_t> column_widths(const ViewTable& t) {
  std::vector<size_t> widths;
  for (const ViewColumn& c : t.columns)
    widths.push_back(std::max({kMinWidth, c.flavor.size() + 1, short_title(c).size() + 1, column_unit(c).size() + 1}));
  return widths;
}

// Rows' further facts (line, address, ...) stand as columns in front of the
// name, as wide as their longest value.
std::vector<size_t> field_widths(const ViewTable& t) {
  std::vector<size_t> widths;
  for (const ViewRow& row : t.rows)
    for (size_t f = 0; f < row.fields.size(); ++f) {
      if (widths.size() <= f) widths.push_back(row.fields[f].first.size());
      widths[f] = std::max(widths[f], row.fields[f].second.size());
    }
  return widths;
}

std::string field_cells(const std::vector<size_t>& widths, const std::vector<std::pair<std::string, std::string>>& fields,
                        bool keys) {
  std::string text;
  for (size_t f = 0; f < widths.size(); ++f) {
    const std::string cell = f < fields.size() ? (keys ? fields[f].first : fields[f].second) : "";
    text += std::string(widths[f] - std::min(widths[f], cell.size()), ' ') + cell + "  ";
  }
  return text;
}

void text_row(std::ostringstream& out, const ViewTable& t, const std::vector<size_t>& widths,
              const std::vector<size_t>& fields, const ViewRow& row, const std::string& marker) {
  const std::string name = field_cells(fields, row.fields, false) + marker +
                           std::string(t.tree ? 2 * static_cast<size_t>(row.depth) : 0, ' ') + row.name;
  for (size_t c = 0; c <= t.columns.size(); ++c) {
    if (c == t.name_position) out << ' ' << name << (c < t.columns.size() ? "  " : "");
    if (c < t.columns.size()) {
      const std::string value = format_value(t.columns[c], row.values[c]);
      out << std::string(widths[c] > value.size() ? widths[c] - value.size() : 1, ' ') << value;
    }
  }
  out << "\n";
}

std::string render_text(const ViewTable& t) {
  std::ostringstream out;
  out << t.title << "\n\n";
  const std::vector<size_t> widths = column_widths(t);
  // Three header lines: flavor, title, unit; the name column heads "Name".
  auto header_line = [&](auto cell_text, const std::string& name_text) {
    for (size_t c = 0; c <= t.columns.size(); ++c) {
      if (c == t.name_position) out << "  " << name_text << (c < t.columns.size() ? "  " : "");
      if (c < t.columns.size()) {
        const std::string text = cell_text(t.columns[c]);
        out << std::string(widths[c] > text.size() ? widths[c] - text.size() : 1, ' ') << text;
      }
    }
    out << "\n";
  };
  const std::vector<size_t> fields = t.nested ? std::vector<size_t>() : field_widths(t);
  const std::string field_heads = t.rows.empty() ? "" : field_cells(fields, t.rows.front().fields, true);
  header_line([](const ViewColumn& c) { return c.flavor; }, field_heads + "Name");
  header_line(short_title, "");
  header_line(column_unit, "");
  for (const ViewRow& row : t.rows) {
    if (!t.nested) {
      text_row(out, t, widths, fields, row, row.marker);
      continue;
    }
    for (const ViewRow& caller : row.callers) text_row(out, t, widths, fields, caller, "  ");
    text_row(out, t, widths, fields, row, "*");
    for (const ViewRow& callee : row.callees) text_row(out, t, widths, fields, callee, "  ");
    out << "\n";
  }
  return out.str();
}

std::string render_csv(const ViewTable& t) {
  std::ostringstream out;
  if (t.nested) out << "function,role,";
  for (const ViewColumn& c : t.columns) out << csv_field(c.key) << ",";
  out << "name,load_object";
  if (t.tree) out << ",depth";
  if (!t.rows.empty())
    for (const auto& field : t.rows.front().fields) out << "," << csv_field(field.first);
  out << "\n";
  auto line = [&](const ViewRow& row, const std::string& function, const std::string& role) {
    if (t.nested) out << csv_field(function) << "," << role << ",";
    for (size_t c = 0; c < t.columns.size(); ++c) out << json_number(t.columns[c], row.values[c]) << ",";
    out << csv_field(row.name) << "," << csv_field(row.load_object);
    if (t.tree) out << "," << row.depth;
    for (const auto& field : row.fields) out << "," << csv_field(field.second);
    out << "\n";
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
  if (t.tree) out << ", \"depth\": " << row.depth;
  if (!row.marker.empty()) out << ", \"marker\": " << json_string(row.marker);
  for (const auto& [key, value] : row.fields) out << ", " << json_string(key) << ": " << json_string(value);
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
        << json_string(col.flavor + " " + col.title) << ", \"unit\": " << json_string(column_unit(col)) << "}";
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
