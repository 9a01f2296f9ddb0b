#include "yaml_text.h"

#include <strings.h>

#include <cctype>
#include <cstdio>
#include <cstring>

namespace lumen::metadata {

std::string yaml_quoted(const std::string& text) {
  std::string out = "\"";
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string yaml_scalar(const std::string& text) {
  // Plain only for words that cannot read as another type or as syntax: a
  // leading letter or '/', and the characters of names, paths and versions.
  static const char* const kReserved[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '/')) return yaml_quoted(text);
  for (const char* word : kReserved)
    if (strcasecmp(text.c_str(), word) == 0) return yaml_quoted(text);
  for (const unsigned char c : text)
    if (!std::isalnum(c) && std::strchr("/._-+@", c) == nullptr) return yaml_quoted(text);
  return text;
}

std::string yaml_list(const std::vector<std::string>& items) {
  std::string list = "[";
  for (size_t i = 0; i < items.size(); ++i) list += (i ? ", " : "") + yaml_scalar(items[i]);
  return list + "]";
}

}  // namespace lumen::metadata
