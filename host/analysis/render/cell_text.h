// How one value is written in each output format, for every view alike:
// one precision per unit in text, full precision in CSV and JSON, CSV
// fields quoted as RFC 4180 says, JSON strings escaped.
#pragma once

#include <lumen/plugin_abi.h>

#include <string>

namespace lumen::analysis {

enum class OutputFormat { Text, Csv, Json };

// What a number measures. Times are given in seconds.
struct Quantity {
  lumen_metric_unit unit = LUMEN_UNIT_COUNT;
  bool percent = false;
};

// "sec.", "count", "bytes", "ratio"; "%" for a percentage.
std::string unit_text(const Quantity& quantity);
const char* unit_word(lumen_metric_unit unit);

// Text: seconds and ratios with 3 decimals, percentages with 2, counts and
// bytes whole.
std::string text_number(double value, const Quantity& quantity);
// CSV and JSON: seconds to the nanosecond, other fractions to 9
// significant digits, counts and bytes whole.
std::string data_number(double value, const Quantity& quantity);

// RFC 4180: a field holding a comma, a double quote, CR or LF is enclosed in
// double quotes, and each double quote in it is doubled.
std::string csv_field(const std::string& text);
// A JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(const std::string& text);

}  // namespace lumen::analysis
