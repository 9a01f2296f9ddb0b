#include "sysfs_event.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace lumen::hwc {

namespace {

std::string trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\n");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t\n") - begin + 1);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(trimmed(part));
  return parts;
}

// A whole unsigned number, decimal or 0x hexadecimal.
bool parse_number(const std::string& text, uint64_t* value) {
  if (text.empty() || text[0] == '-') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long number = std::strtoull(text.c_str(), &end, 0);
  if (errno != 0 || end == text.c_str() || *end != '\0') return false;
  *value = number;
  return true;
}

// "LOW-HIGH" or "N", with LOW <= HIGH <= max.
bool parse_range(const std::string& range, uint64_t max, uint64_t* low, uint64_t* high) {
  const size_t dash = range.find('-');
  return parse_number(range.substr(0, dash), low) &&
         parse_number(dash == std::string::npos ? range : range.substr(dash + 1), high) && *low <= *high &&
         *high <= max;
}

bool read_whole(const std::filesystem::path& path, std::string* text) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream content;
  content << in.rdbuf();
  *text = trimmed(content.str());
  return true;
}

}  // namespace

std::string parse_format(const std::string& text, FormatField* field) {
  *field = FormatField{};
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return "'" + text + "' is not WORD:BITS";
  const std::string word = trimmed(text.substr(0, colon));
  if (word == "config") field->word = 0;
  else if (word == "config1") field->word = 1;
  else if (word == "config2") field->word = 2;
  else return "'" + text + "' places bits in " + word + ", which perf_event_attr here has not";
  for (const std::string& range : split(text.substr(colon + 1), ',')) {
    uint64_t low = 0, high = 0;
    if (!parse_range(range, 63, &low, &high))
      return "'" + text + "': '" + range + "' is not a bit range within 0-63";
    for (uint64_t bit = low; bit <= high; ++bit) {
      if (field->bit_count == 64) return "'" + text + "' names more than 64 bits";
      field->bits[field->bit_count++] = static_cast<uint8_t>(bit);
    }
  }
  if (field->bit_count == 0) return "'" + text + "' names no bits";
  return "";
}

std::string apply_terms(const std::string& terms, const std::map<std::string, FormatField>& formats,
                        uint64_t config[3]) {
  for (const std::string& term : split(terms, ',')) {
    if (term.empty()) continue;
    const size_t equals = term.find('=');
    const std::string name = trimmed(term.substr(0, equals));
    const std::string text = equals == std::string::npos ? "1" : trimmed(term.substr(equals + 1));
    uint64_t value = 0;
    if (text == "?")
      return "the term '" + name + "' needs a value of the user's (" + term + "), which lumen does not take";
    if (!parse_number(text, &value)) return "the term '" + term + "' has no number lumen understands";
    const auto format = formats.find(name);
    if (format == formats.end()) return "the term '" + name + "' has no format file";
    const FormatField& field = format->second;
    if (field.bit_count < 64 && (value >> field.bit_count) != 0)
      return "the value of '" + term + "' is wider than its " + std::to_string(field.bit_count) + " bits";
    for (int i = 0; i < field.bit_count; ++i)
      if ((value >> i) & 1u) config[field.word] |= uint64_t{1} << field.bits[i];
  }
  return "";
}

std::string parse_cpu_list(const std::string& text, std::vector<int>* cpus) {
  cpus->clear();
  for (const std::string& range : split(trimmed(text), ',')) {
    uint64_t low = 0, high = 0;
    if (!parse_range(range, 65535, &low, &high))
      return "'" + text + "' is not a CPU list";
    for (uint64_t cpu = low; cpu <= high; ++cpu) cpus->push_back(static_cast<int>(cpu));
  }
  if (cpus->empty()) return "'" + text + "' names no CPU";
  return "";
}

std::string pmu_cpus(const std::string& root, const std::string& pmu, std::vector<int>* cpus) {
  std::string text;
  if (read_whole(std::filesystem::path(root) / pmu / "cpumask", &text)) return parse_cpu_list(text, cpus);
  if (read_whole("/sys/devices/system/cpu/online", &text)) return parse_cpu_list(text, cpus);
  return "neither " + pmu + "'s cpumask nor /sys/devices/system/cpu/online can be read";
}

std::string read_sysfs_event(const std::string& root, const std::string& pmu, const std::string& event,
                             SysfsEvent* out) {
  namespace fs = std::filesystem;
  *out = SysfsEvent{};
  const fs::path directory = fs::path(root) / pmu;
  std::string text;
  uint64_t type = 0;
  if (!read_whole(directory / "type", &text) || !parse_number(text, &type) || type > UINT32_MAX)
    return "the kernel has no PMU '" + pmu + "' (" + (directory / "type").string() + ")";
  out->type = static_cast<uint32_t>(type);
  std::string terms;
  if (event.find('/') != std::string::npos || event.find("..") != std::string::npos ||
      !read_whole(directory / "events" / event, &terms))
    return "the PMU " + pmu + " has no event '" + event + "' (" + (directory / "events").string() + ")";
  std::map<std::string, FormatField> formats;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory / "format", error)) {
    FormatField field;
    if (read_whole(entry.path(), &text) && parse_format(text, &field).empty())
      formats[entry.path().filename().string()] = field;
  }
  if (std::string problem = apply_terms(terms, formats, out->config); !problem.empty())
    return pmu + "/" + event + "/ (" + terms + "): " + problem;
  return "";
}

}  // namespace lumen::hwc
