#include "record_render.h"

#include <cstdio>
#include <sstream>

namespace lumen::analysis {

namespace {

std::string csv_quoted(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

void Record::add_number(const std::string& key, const std::string& label, double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  fields.push_back({key, label, text, true});
}

std::string render_records(const std::string& view, const std::string& title, const std::vector<Record>& records,
                           OutputFormat format) {
  std::ostringstream out;
  if (format == OutputFormat::Json) {
    out << "{\"view\": " << json_string(view) << ", \"records\": [";
    for (size_t r = 0; r < records.size(); ++r) {
      out << (r ? ",\n  " : "\n  ") << "{\"name\": " << json_string(records[r].heading);
      for (const RecordField& f : records[r].fields)
        out << ", " << json_string(f.key) << ": " << (f.is_number ? f.value : json_string(f.value));
      out << "}";
    }
    out << "]}\n";
  } else if (format == OutputFormat::Csv) {
    out << "name,key,value\n";
    for (const Record& r : records)
      for (const RecordField& f : r.fields) out << csv_quoted(r.heading) << "," << f.key << "," << csv_quoted(f.value) << "\n";
  } else {
    if (!title.empty()) out << title << "\n\n";
    for (const Record& r : records) {
      size_t width = 0;
      for (const RecordField& f : r.fields) width = std::max(width, f.label.size());
      if (!r.heading.empty()) out << r.heading << "\n";
      for (const RecordField& f : r.fields)
        out << "  " << std::string(width - f.label.size(), ' ') << f.label << ": " << f.value << "\n";
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace lumen::analysis
