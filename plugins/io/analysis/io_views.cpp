// er_print's I/O views:
//   -ioactivity   one row per file name
//   -iodetail     one row per descriptor and the file it named
//   -iocallstack  one row per call stack, the traced call as its leaf
// Each counts the calls in er_print's selection (threads, samples, time)
// and shows every metric of the plugin with a summary of the totals.
//
// File ids are per process; each process's records start with its IoStart
// record, which is how the records of several experiments are told apart.
#include <lumen/analysis_support.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "io_analysis.h"

namespace lumen::io {
namespace {

struct Totals {
  int64_t values[kMetricCount] = {};
  void add(const int64_t* other) {
    for (size_t i = 0; i < kMetricCount; ++i) values[i] = lumen_saturating_add(values[i], other[i]);
  }
};

// A call stack as the view prints it: the traced call, then the frames of
// the stack it was recorded with, resolved with the load objects of its
// time (names copied: the host's are valid only during the call).
struct ResolvedStack {
  std::vector<std::string> names;  // function, load object, function, ...
};

struct Scan {
  const lumen_view_host* host = nullptr;
  uint32_t processes = 0;
  std::map<std::pair<uint32_t, uint32_t>, std::string> names;       // (process, file) -> name
  std::map<std::pair<uint32_t, uint32_t>, Totals> by_file;          // (process, file)
  std::map<std::tuple<uint32_t, int32_t, uint32_t>, Totals> by_fd;  // (process, fd, file)
  std::map<std::string, Totals> by_stack;                           // resolved frames, as one key
  std::map<std::string, ResolvedStack> stacks;
  // (process, stack, epoch, call) -> key in by_stack: each resolved once.
  std::map<std::tuple<uint32_t, uint64_t, uint32_t, uint16_t>, std::string> stack_keys;
  bool want_stacks = false;
  Totals total;
  std::string problem;

  uint32_t process() const { return processes == 0 ? 0 : processes - 1; }
  std::string name_of(uint32_t process, uint32_t file) const {
    const auto it = names.find({process, file});
    return it == names.end() ? "<no file>" : it->second;
  }
};

const std::string& stack_key(Scan& scan, const IoCall& call) {
  const lumen_view_host& host = *scan.host;
  const auto at = std::make_tuple(scan.process(), call.stack_id, host.map_epoch(host.context, call.start_ns), call.call);
  if (const auto it = scan.stack_keys.find(at); it != scan.stack_keys.end()) return it->second;
  std::vector<lumen_frame_name> frames(LUMEN_MAX_STACK_DEPTH);
  const size_t count = call.stack_id == LUMEN_NO_STACK
                           ? 0
                           : host.stack_frames_at(host.context, call.stack_id, call.start_ns, frames.data(),
                                                  frames.size());
  ResolvedStack stack;
  stack.names = {call_name(call.call), ""};
  for (size_t i = 0; i < count; ++i) {
    stack.names.emplace_back(frames[i].function ? frames[i].function : "<Unknown>");
    stack.names.emplace_back(frames[i].load_object ? frames[i].load_object : "");
  }
  std::string key;
  for (const std::string& name : stack.names) key += name + '\t';
  scan.stacks.try_emplace(key, std::move(stack));
  return scan.stack_keys.emplace(at, key).first->second;
}

void visit(void* arg, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* scan = static_cast<Scan*>(arg);
  if (!scan->problem.empty()) return;
  try {
    if (kind == kStartRecord) {
      ++scan->processes;
    } else if (kind == kFileRecord) {
      IoFile file;
      if (bytes < sizeof file) throw std::runtime_error("an I/O file record is too short");
      std::memcpy(&file, payload, sizeof file);
      if (sizeof file + file.name_bytes > bytes) throw std::runtime_error("an I/O file record's name is cut short");
      scan->names[{scan->process(), file.file}] =
          std::string(static_cast<const char*>(payload) + sizeof file, file.name_bytes);
    } else if (kind == kCallRecord) {
      IoCall call;
      if (bytes < sizeof call) throw std::runtime_error("an I/O call record is too short");
      std::memcpy(&call, payload, sizeof call);
      if (!scan->host->selected(scan->host->context, call.start_ns, call.thread_id)) return;
      const CallTotals totals = totals_of(call);
      scan->by_file[{scan->process(), call.file}].add(totals.values);
      scan->by_fd[{scan->process(), call.fd, call.file}].add(totals.values);
      if (scan->want_stacks) scan->by_stack[stack_key(*scan, call)].add(totals.values);
      scan->total.add(totals.values);
    }
  } catch (const std::exception& e) {
    scan->problem = e.what();
  }
}

struct Row {
  std::string name;
  Totals totals;
  const ResolvedStack* stack = nullptr;
};

// Most time first, then most bytes, then name, so that equal runs print in
// the same order.
void sort_rows(std::vector<Row>& rows) {
  const auto time = [](const Row& r) {
    const int64_t* v = r.totals.values;
    return lumen_saturating_add(lumen_saturating_add(v[kReadTime], v[kWriteTime]),
                                lumen_saturating_add(v[kOtherTime], v[kErrorTime]));
  };
  const auto bytes = [](const Row& r) {
    return lumen_saturating_add(r.totals.values[kReadBytes], r.totals.values[kWriteBytes]);
  };
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (time(a) != time(b)) return time(a) > time(b);
    if (bytes(a) != bytes(b)) return bytes(a) > bytes(b);
    return a.name < b.name;
  });
}

void emit(const lumen_view_host* host, const Scan& scan, const char* title, std::vector<Row> rows) {
  for (size_t i = 0; i < kMetricCount; ++i)
    host->summary(host->context, kColumns[i].key, kColumns[i].title, static_cast<double>(scan.total.values[i]),
                  kColumns[i].unit);
  sort_rows(rows);
  if (host->row_limit != 0 && rows.size() > host->row_limit) rows.resize(host->row_limit);
  host->table_begin(host->context, title, kColumns, kMetricCount);
  std::vector<lumen_frame_name> frames;
  for (const Row& row : rows) {
    double values[kMetricCount];
    for (size_t i = 0; i < kMetricCount; ++i) values[i] = static_cast<double>(row.totals.values[i]);
    if (row.stack == nullptr) {
      host->table_row(host->context, row.name.c_str(), values, LUMEN_NO_STACK);
      continue;
    }
    frames.clear();
    const std::vector<std::string>& names = row.stack->names;
    for (size_t f = 0; f + 1 < names.size(); f += 2) frames.push_back({names[f].c_str(), names[f + 1].c_str()});
    host->table_row_frames(host->context, row.name.c_str(), values, frames.data(), frames.size());
  }
}

// Runs the scan (once for all the I/O views while the selection stays,
// lumen::kept_reading), then `rows` turns it into the view's rows.
template <typename MakeRows>
int run_view(const lumen_view_host* host, const char* title, bool want_stacks, char* error, size_t error_size,
             MakeRows rows) {
  try {
    std::unique_ptr<Scan> own;
    std::string problem;
    const Scan* scan = kept_reading(host, want_stacks ? "scan with stacks" : "scan", own, problem, [&](Scan& into) {
      into.host = host;
      into.want_stacks = want_stacks;
      host->for_each_record(host->context, visit, &into);
      into.host = nullptr;  // the view's that read it
      return into.problem;
    });
    if (scan == nullptr) {
      std::snprintf(error, error_size, "%s", problem.c_str());
      return 1;
    }
    emit(host, *scan, title, rows(*scan));
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

std::string process_prefix(const Scan& scan, uint32_t process) {
  return scan.processes > 1 ? "[" + std::to_string(process + 1) + "] " : "";
}

int activity(const lumen_view_host* host, char* error, size_t error_size) {
  return run_view(host, "I/O activity by file name", false, error, error_size, [](const Scan& scan) {
    std::map<std::string, Totals> by_name;
    for (const auto& [key, totals] : scan.by_file) by_name[scan.name_of(key.first, key.second)].add(totals.values);
    std::vector<Row> rows;
    for (const auto& [name, totals] : by_name) rows.push_back({name, totals});
    return rows;
  });
}

int detail(const lumen_view_host* host, char* error, size_t error_size) {
  return run_view(host, "I/O activity by file descriptor", false, error, error_size, [](const Scan& scan) {
    // A file opened again on the same descriptor number is one row.
    std::map<std::string, Totals> by_name;
    for (const auto& [key, totals] : scan.by_fd) {
      const auto& [process, fd, file] = key;
      by_name[process_prefix(scan, process) + scan.name_of(process, file) + " (fd " + std::to_string(fd) + ")"].add(
          totals.values);
    }
    std::vector<Row> rows;
    for (const auto& [name, totals] : by_name) rows.push_back({name, totals});
    return rows;
  });
}

int callstack(const lumen_view_host* host, char* error, size_t error_size) {
  return run_view(host, "I/O activity by call stack", true, error, error_size, [](const Scan& scan) {
    std::vector<Row> rows;
    for (const auto& [key, totals] : scan.by_stack) rows.push_back({key, totals, &scan.stacks.at(key)});
    sort_rows(rows);
    for (size_t i = 0; i < rows.size(); ++i)
      rows[i].name = "stack " + std::to_string(i + 1) + " of " + std::to_string(rows.size());
    return rows;
  });
}

}  // namespace

const lumen_view_def kViews[] = {
    {"ioactivity", "I/O by file name: time, bytes, counts and errors of the traced calls", activity},
    {"iodetail", "I/O by file descriptor (and the file it named)", detail},
    {"iocallstack", "I/O by call stack, the traced call as its leaf", callstack},
    {"iostat", "I/O statistics: calls, bytes, time and call sizes of reads, writes, other calls and errors",
     run_statistics_view},
};
const size_t kViewCount = sizeof kViews / sizeof kViews[0];

}  // namespace lumen::io
