#include "cell_text.h"

#include <charconv>
#include <cstdio>

#include "terminal_text.h"

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

// What printf's "%.{precision}f" or "%.{precision}g" writes, several times
// quicker (a table of millions of cells spent half its time in printf).
std::string formatted(double value, std::chars_format format, int precision) {
  char buffer[400];  // DBL_MAX written in full, with nine decimals
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value, format, precision);
  if (error != std::errc()) return "";
  return std::string(buffer, end);
}

}  // namespace

std::string text_number(double value, const Quantity& quantity) {
  return formatted(value, std::chars_format::fixed, quantity.percent ? 2 : fractional(quantity) ? 3 : 0);
}

std::string data_number(double value, const Quantity& quantity) {
  if (quantity.percent || quantity.unit != LUMEN_UNIT_NANOSECONDS)
    return fractional(quantity) ? formatted(value, std::chars_format::general, 9)
                                : formatted(value, std::chars_format::fixed, 0);
  // Seconds to the nanosecond, whatever their size: nine significant
  // digits held a day's CPU time to the millisecond only.
  std::string text = formatted(value, std::chars_format::fixed, 9);
  if (text.find_first_of("0123456789") == std::string::npos) return text;  // inf, nan
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
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

// JSON's own escapes for control characters (C0, DEL and C1 alike, so a
// terminal shown the file acts on none); a byte that is not UTF-8 cannot be
// in a JSON string and is written as the text \xNN.
std::string json_string(const std::string& text) {
  std::string out = "\"";
  char escaped[8];
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t length = utf8_sequence_length(text, i);
      if (length == 0) {
        std::snprintf(escaped, sizeof escaped, "\\\\x%02x", c);
        out += escaped;
        ++i;
      } else if (c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0) {
        std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(text[i + 1]));
        out += escaped;
        i += 2;
      } else {
        out.append(text, i, length);
        i += length;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  return out + "\"";
}

}  // namespace lumen::analysis
