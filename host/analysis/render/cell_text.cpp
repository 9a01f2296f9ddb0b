#include "cell_text.h"

#include <cstdio>

namespace lumen::analysis {

const char* unit_word(lumen_metric_unit unit) {
  switch (unit) {
    case LUMEN_UNIT_NANOSECONDS: return "sec.";
    case LUMEN_UNIT_COUNT: return "count";
    case LUMEN_UNIT_BYTES: return "bytes";
    case LUMEN_UNIT_RATIO: return "ratio";
  }
  return "";
}

std::string unit_text(const Quantity& quantity) { return quantity.percent ? "%" : unit_word(quantity.unit); }

namespace {

bool fractional(const Quantity& q) {
  return q.percent || q.unit == LUMEN_UNIT_NANOSECONDS || q.unit == LUMEN_UNIT_RATIO;
}

}  // namespace

std::string text_number(double value, const Quantity& quantity) {
  char buffer[64];
  if (quantity.percent) std::snprintf(buffer, sizeof buffer, "%.2f", value);
  else if (fractional(quantity)) std::snprintf(buffer, sizeof buffer, "%.3f", value);
  else std::snprintf(buffer, sizeof buffer, "%.0f", value);
  return buffer;
}

std::string data_number(double value, const Quantity& quantity) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fractional(quantity) ? "%.9g" : "%.0f", value);
  return buffer;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

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

}  // namespace lumen::analysis
