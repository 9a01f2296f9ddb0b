#include "java_names.h"

namespace lumen::java {

namespace {

// Reads one field type at `pos`, advancing it; empty when malformed.
std::string read_type(const std::string& s, size_t& pos) {
  int dimensions = 0;
  while (pos < s.size() && s[pos] == '[') ++dimensions, ++pos;
  if (pos >= s.size()) return {};
  std::string base;
  switch (s[pos]) {
    case 'B': base = "byte"; break;
    case 'C': base = "char"; break;
    case 'D': base = "double"; break;
    case 'F': base = "float"; break;
    case 'I': base = "int"; break;
    case 'J': base = "long"; break;
    case 'S': base = "short"; break;
    case 'Z': base = "boolean"; break;
    case 'V': base = "void"; break;
    case 'L': {
      const size_t end = s.find(';', pos);
      if (end == std::string::npos) return {};
      base = s.substr(pos + 1, end - pos - 1);
      for (char& c : base)
        if (c == '/') c = '.';
      pos = end;
      break;
    }
    default: return {};
  }
  ++pos;
  for (int i = 0; i < dimensions; ++i) base += "[]";
  return base;
}

}  // namespace

std::string java_type_name(const std::string& signature) {
  size_t pos = 0;
  std::string name = read_type(signature, pos);
  return name.empty() || pos != signature.size() ? signature : name;
}

std::string java_parameter_list(const std::string& method_signature) {
  if (method_signature.empty() || method_signature[0] != '(') return method_signature;
  std::string list = "(";
  size_t pos = 1;
  while (pos < method_signature.size() && method_signature[pos] != ')') {
    const std::string type = read_type(method_signature, pos);
    if (type.empty()) return method_signature;
    list += (list.size() > 1 ? ", " : "") + type;
  }
  if (pos >= method_signature.size()) return method_signature;
  return list + ")";
}

}  // namespace lumen::java
