#include "option_value.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace lumen::host {

namespace {

std::string format_duration(int64_t ns) {
  if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
  if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
  if (ns % 1'000 == 0) return std::to_string(ns / 1'000) + "us";
  return std::to_string(ns) + "ns";
}

std::optional<int64_t> parse_duration_ns(const std::string& text, int64_t bare_unit_ns) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  char* end = nullptr;
  const std::string number = text.substr(0, i);
  const double amount = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) return std::nullopt;
  const std::string suffix = text.substr(i);
  double unit = 0;
  if (suffix.empty()) unit = static_cast<double>(bare_unit_ns);
  else if (suffix == "s") unit = 1e9;
  else if (suffix == "ms" || suffix == "m") unit = 1e6;
  else if (suffix == "us" || suffix == "u") unit = 1e3;
  else if (suffix == "ns" || suffix == "n") unit = 1;
  else return std::nullopt;
  return static_cast<int64_t>(std::llround(amount * unit));
}

}  // namespace

std::string describe_option_values(const lumen_option_def& def) {
  switch (def.kind) {
    case LUMEN_OPTION_DURATION:
      return "a duration from " + format_duration(def.min) + " to " + format_duration(def.max) +
             " (suffix s, ms, us or ns; a number alone is in " + format_duration(def.bare_unit_ns).substr(1) + ")";
    case LUMEN_OPTION_INTEGER:
      return "an integer from " + std::to_string(def.min) + " to " + std::to_string(def.max);
    case LUMEN_OPTION_BOOLEAN:
      return "on or off";
    case LUMEN_OPTION_STRING:
      return "a string";
  }
  return "a value";
}

CanonicalValue canonical_option_value(const lumen_option_def& def, const std::string& written) {
  const std::string expected = describe_option_values(def);
  switch (def.kind) {
    case LUMEN_OPTION_DURATION: {
      const auto ns = parse_duration_ns(written, def.bare_unit_ns);
      if (!ns) return {std::nullopt, "'" + written + "' is not " + expected};
      if (*ns < def.min || *ns > def.max) return {std::nullopt, "'" + written + "' is out of range: " + expected};
      return {std::to_string(*ns), ""};
    }
    case LUMEN_OPTION_INTEGER: {
      char* end = nullptr;
      const long long v = std::strtoll(written.c_str(), &end, 10);
      if (written.empty() || *end != '\0') return {std::nullopt, "'" + written + "' is not " + expected};
      if (v < def.min || v > def.max) return {std::nullopt, "'" + written + "' is out of range: " + expected};
      return {std::to_string(v), ""};
    }
    case LUMEN_OPTION_BOOLEAN:
      if (written == "on" || written == "true" || written == "yes" || written == "1") return {"1", ""};
      if (written == "off" || written == "false" || written == "no" || written == "0") return {"0", ""};
      return {std::nullopt, "'" + written + "' is not " + expected};
    case LUMEN_OPTION_STRING:
      return {written, ""};
  }
  return {std::nullopt, "unknown option kind"};
}

}  // namespace lumen::host
