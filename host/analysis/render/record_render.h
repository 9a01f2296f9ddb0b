// Views that describe things one by one rather than in a table (-fsummary,
// -statistics, -overview): each record is a heading and labelled fields.
// Text shows "label: value" lines; CSV one line per field; JSON an object
// per record, numbers as numbers.
#pragma once

#include <string>
#include <vector>

#include "view_table.h"

namespace lumen::analysis {

struct RecordField {
  std::string key;    // in CSV and JSON
  std::string label;  // in text
  std::string value;
  bool is_number = false;
};

struct Record {
  std::string heading;
  std::vector<RecordField> fields;
  void add(const std::string& key, const std::string& label, const std::string& value) {
    fields.push_back({key, label, value, false});
  }
  void add_number(const std::string& key, const std::string& label, double value, int decimals);
};

std::string render_records(const std::string& view, const std::string& title, const std::vector<Record>& records,
                           OutputFormat format);

}  // namespace lumen::analysis
