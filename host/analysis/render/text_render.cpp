// Text: tables with three header lines (flavor, title, unit) and the name
// column where the view puts it; records as "label: value" lines or as
// aligned columns.
#include <algorithm>

#include "format_renderers.h"

namespace lumen::analysis {

namespace {

constexpr size_t kMinWidth = 12;

// A metric title as the column shows it: "User CPU Time" reads "User CPU"
// under a "sec." unit line.
std::string short_title(const ViewColumn& c) {
  std::string title = c.title;
  const auto time = title.rfind(" Time");
  if (time != std::string::npos && time + 5 == title.size()) title.erase(time);
  return title;
}

void widen_to_cells(std::vector<size_t>& widths, const ViewTable& t, const ViewRow& row) {
  for (size_t c = 0; c < t.columns.size() && c < row.values.size(); ++c)
    widths[c] = std::max(widths[c], text_number(row.values[c], t.columns[c].quantity()).size() + 1);
  for (const ViewRow& r : row.callers) widen_to_cells(widths, t, r);
  for (const ViewRow& r : row.callees) widen_to_cells(widths, t, r);
}

// Each column as wide as its longest header line or cell, so nothing is cut
// and no two cells run together.
std::vector<size_t> column_widths(const ViewTable& t) {
  std::vector<size_t> widths = text_widths(t);
  for (const ViewRow& row : t.rows) widen_to_cells(widths, t, row);
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

void right_aligned_into(std::string& out, const std::string& text, size_t width) {
  out.append(width > text.size() ? width - text.size() : 1, ' ');
  out += text;
}

void text_row(std::string& out, const ViewTable& t, const std::vector<size_t>& widths,
              const std::vector<size_t>& fields, const ViewRow& row, const std::string& marker) {
  const std::string name = field_cells(fields, row.fields, false) + marker +
                           std::string(t.tree ? 2 * static_cast<size_t>(row.depth) : 0, ' ') + row.name;
  for (size_t c = 0; c <= t.columns.size(); ++c) {
    // Plugins' tables keep their names two apart from the last figure.
    if (c == t.name_position) {
      out += t.stacks ? "  " : " ";
      out += name;
      if (c < t.columns.size()) out += "  ";
    }
    if (c < t.columns.size()) right_aligned_into(out, text_number(row.values[c], t.columns[c].quantity()), widths[c]);
  }
  out += '\n';
  for (const StackFrame& f : row.stack) out += std::string(16, ' ') + f.function + " (" + f.load_object + ")\n";
}

std::string labelled_lines(const std::vector<RecordField>& fields, const std::string& indent, bool units) {
  size_t width = 0;
  for (const RecordField& f : fields) width = std::max(width, f.label.size());
  std::string text;
  for (const RecordField& f : fields) {
    const bool seconds = units && f.has_quantity && !f.quantity.percent && f.quantity.unit == LUMEN_UNIT_NANOSECONDS;
    text += indent + std::string(width - f.label.size(), ' ') + f.label + ": " + field_text(f) + (seconds ? " s" : "") +
            "\n";
  }
  return text;
}

// One line per record, a column per field: text left-aligned, numbers right.
std::string column_lines(const RecordList& list) {
  if (list.records.empty()) return "";
  const std::vector<RecordField>& heads = list.records.front().fields;
  std::vector<size_t> widths;
  for (const RecordField& f : heads) widths.push_back(f.label.size());
  for (const Record& r : list.records)
    for (size_t f = 0; f < r.fields.size() && f < widths.size(); ++f)
      widths[f] = std::max(widths[f], field_text(r.fields[f]).size());
  auto line = [&](auto cell, auto is_number) {
    std::string text;
    for (size_t f = 0; f < widths.size(); ++f) {
      const std::string value = cell(f);
      const std::string pad(widths[f] - std::min(widths[f], value.size()), ' ');
      const bool last = f + 1 == widths.size();
      text += is_number(f) ? pad + value : value + (last ? "" : pad);
      if (!last) text += "  ";
    }
    return text + "\n";
  };
  std::string text = line([&](size_t f) { return heads[f].label; }, [&](size_t f) { return heads[f].is_number; });
  for (const Record& r : list.records)
    text += line([&](size_t f) { return f < r.fields.size() ? field_text(r.fields[f]) : std::string(); },
                 [&](size_t f) { return f < r.fields.size() && r.fields[f].is_number; });
  return text;
}

std::string list_text(const RecordList& list) {
  if (list.layout == RecordLayout::Columns) return column_lines(list);
  std::string text;
  for (const Record& r : list.records) {
    if (list.layout == RecordLayout::Members) {
      text += labelled_lines(r.fields, "", true);
      continue;
    }
    if (!list.heading_label.empty()) text += list.heading_label + ": " + r.heading + "\n";
    else if (!r.heading.empty()) text += r.heading + "\n";
    text += labelled_lines(r.fields, "  ", false) + "\n";
  }
  return text;
}

}  // namespace

namespace {

// The title and three header lines (flavor, title, unit); the name column
// heads "Name", after the rows' field heads.
void append_head(std::string& out, const ViewTable& t, const std::vector<size_t>& widths,
                 const std::string& field_heads) {
  out += t.title + "\n\n";
  auto header_line = [&](auto cell_text, const std::string& name_text) {
    for (size_t c = 0; c <= t.columns.size(); ++c) {
      if (c == t.name_position) out += "  " + name_text + (c < t.columns.size() ? "  " : "");
      if (c < t.columns.size()) right_aligned_into(out, cell_text(t.columns[c]), widths[c]);
    }
    out += '\n';
  };
  const bool flavors = std::any_of(t.columns.begin(), t.columns.end(), [](const ViewColumn& c) { return !c.flavor.empty(); });
  if (flavors) header_line([](const ViewColumn& c) { return c.flavor; }, field_heads + "Name");
  header_line(short_title, flavors ? "" : field_heads + "Name");
  header_line([](const ViewColumn& c) { return unit_text(c.quantity()); }, "");
}

// Appended to `out`, which a long table's text is grown in once, not
// copied from a stream and then into the document's text.
void append_text_table(std::string& out, const ViewTable& t) {
  const std::vector<size_t> widths = column_widths(t);
  const std::vector<size_t> fields = t.nested ? std::vector<size_t>() : field_widths(t);
  append_head(out, t, widths, t.rows.empty() ? "" : field_cells(fields, t.rows.front().fields, true));
  for (const ViewRow& row : t.rows) {
    if (!t.nested) {
      text_row(out, t, widths, fields, row, row.marker);
      continue;
    }
    for (const ViewRow& caller : row.callers) text_row(out, t, widths, fields, caller, "  ");
    text_row(out, t, widths, fields, row, "*");
    for (const ViewRow& callee : row.callees) text_row(out, t, widths, fields, callee, "  ");
    out += '\n';
  }
}

}  // namespace

std::vector<size_t> text_widths(const ViewTable& t) {
  std::vector<size_t> widths;
  for (const ViewColumn& c : t.columns)
    widths.push_back(
        std::max({kMinWidth, c.flavor.size() + 1, short_title(c).size() + 1, unit_text(c.quantity()).size() + 1}));
  return widths;
}

void widen_text_widths(std::vector<size_t>& widths, const ViewTable& t, const ViewRow& row) {
  widen_to_cells(widths, t, row);
}

std::string text_table_head(const ViewTable& t, const std::vector<size_t>& widths) {
  std::string text;
  append_head(text, t, widths, "");
  return text;
}

void append_text_table_row(std::string& out, const ViewTable& t, const std::vector<size_t>& widths,
                           const ViewRow& row) {
  text_row(out, t, widths, {}, row, row.marker);
}

std::string text_table(const ViewTable& t) {
  std::string text;
  append_text_table(text, t);
  return text;
}

std::string text_document(const Document& document) {
  std::string text = document.title.empty() ? "" : document.title + "\n\n";
  for (const RecordList& list : document.lists) text += list_text(list);
  for (const ViewTable& table : document.tables) {
    if (!text.empty()) text += '\n';
    append_text_table(text, table);
  }
  return text;
}

}  // namespace lumen::analysis
