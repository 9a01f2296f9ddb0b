// -iostat: what the selected calls of each class (reads, writes, other
// calls, errors) add up to, their longest call and their sizes, and how many
// reads and writes moved how many bytes, in gprofng's size ranges.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <stdexcept>
#include <string>

#include "io_analysis.h"

namespace lumen::io {
namespace {

enum Class { kReads, kWrites, kOthers, kErrors, kClassCount };
const char* const kClassNames[kClassCount] = {"Reads", "Writes", "Other I/O", "Errors"};

struct ClassTotals {
  int64_t calls = 0, bytes = 0, time_ns = 0, longest_ns = 0;
  int64_t smallest = -1, largest = 0;  // bytes of one call (reads and writes)
};

// Upper bounds (exclusive) of the size ranges; a last range holds the rest.
const struct {
  int64_t below;
  const char* name;
} kRanges[] = {{1024, "0 - 1 KiB"},           {8 << 10, "1 KiB - 8 KiB"},     {32 << 10, "8 KiB - 32 KiB"},
               {128 << 10, "32 KiB - 128 KiB"}, {256 << 10, "128 KiB - 256 KiB"}, {512 << 10, "256 KiB - 512 KiB"},
               {1 << 20, "512 KiB - 1 MiB"},    {10 << 20, "1 MiB - 10 MiB"},    {100 << 20, "10 MiB - 100 MiB"},
               {1 << 30, "100 MiB - 1 GiB"},    {INT64_MAX, "1 GiB and more"}};
constexpr size_t kRangeCount = std::size(kRanges);

struct Statistics {
  const lumen_view_host* host = nullptr;
  ClassTotals classes[kClassCount];
  int64_t sizes[kRangeCount][2] = {};  // reads, writes per range
  std::string problem;
};

void visit(void* arg, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* s = static_cast<Statistics*>(arg);
  if (kind != kCallRecord || !s->problem.empty()) return;
  if (bytes < sizeof(IoCall)) {
    s->problem = "an I/O call record is too short";
    return;
  }
  IoCall call;
  std::memcpy(&call, payload, sizeof call);
  if (!s->host->selected(s->host->context, call.start_ns, call.thread_id)) return;
  const bool failed = call.error != 0 || call.result < 0;
  const CallClass call_kind = call_class(call.call);
  const Class c = failed ? kErrors : call_kind == CallClass::kRead ? kReads : call_kind == CallClass::kWrite ? kWrites
                                                                                                           : kOthers;
  ClassTotals& t = s->classes[c];
  const auto duration = lumen_value_of(call.duration_ns);
  ++t.calls;
  t.time_ns = lumen_saturating_add(t.time_ns, duration);
  t.longest_ns = std::max(t.longest_ns, duration);
  if (c != kReads && c != kWrites) return;
  t.bytes = lumen_saturating_add(t.bytes, call.result);
  t.smallest = t.smallest < 0 ? call.result : std::min(t.smallest, call.result);
  t.largest = std::max(t.largest, call.result);
  size_t range = 0;
  while (range + 1 < std::size(kRanges) && call.result >= kRanges[range].below) ++range;
  ++s->sizes[range][c == kReads ? 0 : 1];
}

}  // namespace

int run_statistics_view(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    Statistics s;
    s.host = host;
    host->for_each_record(host->context, visit, &s);
    if (!s.problem.empty()) {
      std::snprintf(error, error_size, "%s", s.problem.c_str());
      return 1;
    }
    const lumen_view_column columns[] = {{"calls", "Calls", LUMEN_UNIT_COUNT},
                                         {"bytes", "Bytes", LUMEN_UNIT_BYTES},
                                         {"time", "Time", LUMEN_UNIT_NANOSECONDS},
                                         {"longest", "Longest Call", LUMEN_UNIT_NANOSECONDS},
                                         {"smallest", "Smallest Bytes", LUMEN_UNIT_BYTES},
                                         {"largest", "Largest Bytes", LUMEN_UNIT_BYTES}};
    host->table_begin(host->context, "I/O statistics", columns, std::size(columns));
    for (size_t c = 0; c < kClassCount; ++c) {
      const ClassTotals& t = s.classes[c];
      const double values[] = {static_cast<double>(t.calls),      static_cast<double>(t.bytes),
                               static_cast<double>(t.time_ns),    static_cast<double>(t.longest_ns),
                               static_cast<double>(std::max<int64_t>(t.smallest, 0)), static_cast<double>(t.largest)};
      host->table_row(host->context, kClassNames[c], values, LUMEN_NO_STACK);
    }
    const lumen_view_column size_columns[] = {{"reads", "Read Calls", LUMEN_UNIT_COUNT},
                                              {"writes", "Write Calls", LUMEN_UNIT_COUNT}};
    host->table_begin(host->context, "Bytes per read and write call", size_columns, std::size(size_columns));
    for (size_t r = 0; r < kRangeCount; ++r) {
      if (s.sizes[r][0] == 0 && s.sizes[r][1] == 0) continue;
      const double values[] = {static_cast<double>(s.sizes[r][0]), static_cast<double>(s.sizes[r][1])};
      host->table_row(host->context, kRanges[r].name, values, LUMEN_NO_STACK);
    }
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

}  // namespace lumen::io
