#include "collection_plan.h"

#include <charconv>
#include <istream>
#include <ostream>
#include <sstream>

#include "experiment_metadata.h"

namespace lumen::metadata {

namespace {

std::string encoded(const std::string& field) {
  if (field.empty()) return "%";
  std::string out;
  for (const unsigned char c : field) {
    if (c <= ' ' || c == '%' || c == 0x7f) {
      static const char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

bool decoded(const std::string& field, std::string& out) {
  out.clear();
  if (field == "%") return true;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '%') {
      out += field[i];
      continue;
    }
    if (i + 2 >= field.size()) return false;
    unsigned byte = 0;
    const char* first = field.data() + i + 1;
    if (std::from_chars(first, first + 2, byte, 16).ptr != first + 2) return false;
    out += static_cast<char>(byte);
    i += 2;
  }
  return true;
}

// One plan line: the keyword and its encoded fields.
struct Line {
  std::ostream& out;
  explicit Line(std::ostream& o, const char* keyword) : out(o) { out << keyword; }
  Line& operator<<(const std::string& field) {
    out << ' ' << encoded(field);
    return *this;
  }
  Line& operator<<(long long number) { return *this << std::to_string(number); }
  ~Line() { out << '\n'; }
};

// Read in the target too, where nothing may throw: from_chars, not stoll.
bool to_number(const std::string& text, long long& value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return !text.empty() && error == std::errc{} && stop == end;
}

}  // namespace

std::string archive_mode_name(ArchiveMode mode) {
  switch (mode) {
    case ArchiveMode::off: return "off";
    case ArchiveMode::copy: return "copy";
    case ArchiveMode::on: break;
  }
  return "on";
}

void write_plan(const CollectionPlan& plan, std::ostream& out) {
  using namespace metadata::plan;
  Line(out, kMagic) << kVersion;
  if (!plan.profile_path.empty()) Line(out, kProfile) << plan.profile_path;
  Line(out, kFollow) << plan.follow;
  const RuntimeSettings& r = plan.runtime;
  Line(out, kSamples) << r.sample_period_ns;
  if (r.sample_signal != 0) Line(out, kSampleSignal) << r.sample_signal;
  if (r.pause_signal != 0) {
    Line line(out, kPauseSignal);
    line << r.pause_signal;
    if (r.start_paused) line << "paused";
  }
  if (r.window_start_ns != 0 || r.window_end_ns != 0) Line(out, kWindow) << r.window_start_ns << r.window_end_ns;
  Line(out, kOrigin) << plan.origin_ns;
  if (r.size_limit_bytes != 0) Line(out, kSizeLimit) << r.size_limit_bytes;
  Line(out, kArchive) << archive_mode_name(r.archive);
  for (const std::string& comment : plan.comments) Line(out, kComment) << comment;
  for (const PlannedPlugin& p : plan.plugins) {
    Line(out, kPlugin) << p.name << p.version << p.data_file << p.collector_path.string();
    for (const auto& [key, value] : p.options) Line(out, kOption) << key << value;
  }
  for (const LeftOut& l : plan.left_out) Line(out, kLeftOut) << l.plugin << l.what << l.reason;
}

bool read_plan(std::istream& in, const std::string& where, CollectionPlan& plan, std::string& error) {
  using namespace metadata::plan;
  std::string text;
  int line_number = 0;
  bool versioned = false;
  while (std::getline(in, text)) {
    ++line_number;
    std::istringstream words(text);
    std::string keyword, word;
    words >> keyword;
    if (keyword.empty() || keyword[0] == '#') continue;
    std::vector<std::string> f;
    bool readable = true;
    while (words >> word) {
      f.emplace_back();
      readable = readable && decoded(word, f.back());
    }
    long long n1 = 0, n2 = 0;
    const auto number = [&](size_t i, long long& value) { return i < f.size() && to_number(f[i], value); };
    const auto fail = [&](const std::string& why) {
      error = where + ":" + std::to_string(line_number) + ": " + why;
      return false;
    };
    if (!readable) return fail("cannot read '" + text + "'");
    if (keyword == kMagic) {
      if (!number(0, n1) || n1 != kVersion)
        return fail("plan version " + (f.empty() ? std::string("?") : f[0]) + " is not supported");
      versioned = true;
    } else if (!versioned) {
      return fail("not a collection plan (no '" + std::string(kMagic) + "' line first)");
    } else if (keyword == kProfile && f.size() == 1) {
      plan.profile_path = f[0];
    } else if (keyword == kFollow && f.size() == 1) {
      plan.follow = f[0];
    } else if (keyword == kSamples && number(0, n1)) {
      plan.runtime.sample_period_ns = n1;
    } else if (keyword == kSampleSignal && number(0, n1)) {
      plan.runtime.sample_signal = static_cast<int>(n1);
    } else if (keyword == kPauseSignal && number(0, n1)) {
      plan.runtime.pause_signal = static_cast<int>(n1);
      plan.runtime.start_paused = f.size() > 1 && f[1] == "paused";
    } else if (keyword == kWindow && number(0, n1) && number(1, n2)) {
      plan.runtime.window_start_ns = n1;
      plan.runtime.window_end_ns = n2;
    } else if (keyword == kOrigin && number(0, n1)) {
      plan.origin_ns = n1;
    } else if (keyword == kSizeLimit && number(0, n1)) {
      plan.runtime.size_limit_bytes = n1;
    } else if (keyword == kArchive && f.size() == 1 && (f[0] == "on" || f[0] == "off" || f[0] == "copy")) {
      plan.runtime.archive = f[0] == "off" ? ArchiveMode::off : f[0] == "copy" ? ArchiveMode::copy : ArchiveMode::on;
    } else if (keyword == kComment && f.size() == 1) {
      plan.comments.push_back(f[0]);
    } else if (keyword == kPlugin && f.size() == 4) {
      plan.plugins.push_back({f[0], f[1], f[2], f[3], {}});
    } else if (keyword == kOption && f.size() == 2 && !plan.plugins.empty()) {
      plan.plugins.back().options.emplace_back(f[0], f[1]);
    } else if (keyword == kLeftOut && f.size() == 3) {
      plan.left_out.push_back({f[0], f[1], f[2]});
    } else {
      return fail("cannot read '" + text + "'");
    }
  }
  if (!versioned) {
    error = where + ": not a collection plan (it is empty)";
    return false;
  }
  return true;
}

}  // namespace lumen::metadata
