// er_print's I/O views, added by this plugin:
//   -ioactivity   one row per file name
//   -iodetail     one row per descriptor and the file it named
//   -iocallstack  one row per call stack, with its frames
// Each shows every metric of the plugin and a summary of the totals.
//
// File ids are per process; each process's records start with its IoStart
// record, which is how the records of several experiments are told apart
// (the view host does not say which experiment a record comes from).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "io_analysis.h"

namespace io_plugin {
namespace {

struct Totals {
  int64_t values[kMetricCount] = {};
  void add(const CallTotals& call) {
    for (size_t i = 0; i < kMetricCount; ++i) values[i] += call.values[i];
  }
};

struct Scan {
  uint32_t processes = 0;
  std::map<std::pair<uint32_t, uint32_t>, std::string> names;           // (process, file) -> name
  std::map<std::pair<uint32_t, uint32_t>, Totals> by_file;              // (process, file)
  std::map<std::tuple<uint32_t, int32_t, uint32_t>, Totals> by_fd;      // (process, fd, file)
  std::map<std::pair<uint32_t, uint64_t>, Totals> by_stack;             // (process, stack)
  Totals total;
  std::string problem;

  uint32_t process() const { return processes == 0 ? 0 : processes - 1; }
  std::string name_of(uint32_t process, uint32_t file) const {
    const auto it = names.find({process, file});
    return it == names.end() ? "<no file>" : it->second;
  }
};

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
      const CallTotals totals = totals_of(call);
      scan->by_file[{scan->process(), call.file}].add(totals);
      scan->by_fd[{scan->process(), call.fd, call.file}].add(totals);
      scan->by_stack[{scan->process(), call.stack_id}].add(totals);
      scan->total.add(totals);
    }
  } catch (const std::exception& e) {
    scan->problem = e.what();
  }
}

const lumen_view_column kColumns[] = {
    {"ioreadbytes", "Read Bytes", LUMEN_UNIT_BYTES},
    {"iowritebytes", "Write Bytes", LUMEN_UNIT_BYTES},
    {"ioreadcnt", "Reads", LUMEN_UNIT_COUNT},
    {"iowritecnt", "Writes", LUMEN_UNIT_COUNT},
    {"ioothercnt", "Other I/O", LUMEN_UNIT_COUNT},
    {"ioerrorcnt", "Errors", LUMEN_UNIT_COUNT},
    {"iotime", "I/O Time", LUMEN_UNIT_NANOSECONDS},
};
static_assert(sizeof kColumns / sizeof kColumns[0] == kMetricCount, "one column per metric");

struct Row {
  std::string name;
  Totals totals;
  uint64_t stack_id = LUMEN_NO_STACK;
};

// Heaviest first: bytes moved, then time, then name, so that equal runs
// print in the same order.
void sort_rows(std::vector<Row>& rows) {
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    const int64_t bytes_a = a.totals.values[kReadBytes] + a.totals.values[kWriteBytes];
    const int64_t bytes_b = b.totals.values[kReadBytes] + b.totals.values[kWriteBytes];
    if (bytes_a != bytes_b) return bytes_a > bytes_b;
    if (a.totals.values[kTime] != b.totals.values[kTime]) return a.totals.values[kTime] > b.totals.values[kTime];
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
  for (const Row& row : rows) {
    double values[kMetricCount];
    for (size_t i = 0; i < kMetricCount; ++i) values[i] = static_cast<double>(row.totals.values[i]);
    host->table_row(host->context, row.name.c_str(), values, row.stack_id);
  }
}

// Runs the scan, then `rows` turns it into the view's rows.
template <typename MakeRows>
int run_view(const lumen_view_host* host, const char* title, char* error, size_t error_size, MakeRows rows) {
  try {
    Scan scan;
    host->for_each_record(host->context, visit, &scan);
    if (!scan.problem.empty()) {
      std::snprintf(error, error_size, "%s", scan.problem.c_str());
      return 1;
    }
    emit(host, scan, title, rows(scan));
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
  return run_view(host, "I/O activity by file name", error, error_size, [](const Scan& scan) {
    std::map<std::string, Totals> by_name;
    for (const auto& [key, totals] : scan.by_file) {
      Totals& sum = by_name[scan.name_of(key.first, key.second)];
      for (size_t i = 0; i < kMetricCount; ++i) sum.values[i] += totals.values[i];
    }
    std::vector<Row> rows;
    for (const auto& [name, totals] : by_name) rows.push_back({name, totals});
    return rows;
  });
}

int detail(const lumen_view_host* host, char* error, size_t error_size) {
  return run_view(host, "I/O activity by file descriptor", error, error_size, [](const Scan& scan) {
    // A file opened again on the same descriptor number is one row.
    std::map<std::string, Totals> by_name;
    for (const auto& [key, totals] : scan.by_fd) {
      const auto& [process, fd, file] = key;
      Totals& sum = by_name[process_prefix(scan, process) + "fd " + std::to_string(fd) + " " + scan.name_of(process, file)];
      for (size_t i = 0; i < kMetricCount; ++i) sum.values[i] += totals.values[i];
    }
    std::vector<Row> rows;
    for (const auto& [name, totals] : by_name) rows.push_back({name, totals});
    return rows;
  });
}

int callstack(const lumen_view_host* host, char* error, size_t error_size) {
  return run_view(host, "I/O activity by call stack", error, error_size, [](const Scan& scan) {
    std::vector<Row> rows;
    for (const auto& [key, totals] : scan.by_stack) {
      const auto& [process, stack_id] = key;
      Row row{process_prefix(scan, process) + "stack", totals, stack_id};
      // The host resolves stack ids in the last experiment it read.
      if (scan.processes > 1 && process != scan.process()) {
        row.name += " (open experiment " + std::to_string(process + 1) + " alone for its frames)";
        row.stack_id = LUMEN_NO_STACK;
      }
      rows.push_back(row);
    }
    sort_rows(rows);
    for (size_t i = 0; i < rows.size(); ++i) rows[i].name += " " + std::to_string(i + 1) + " of " + std::to_string(rows.size());
    return rows;
  });
}

}  // namespace

const lumen_view_def kViews[] = {
    {"ioactivity", "I/O by file name: bytes, counts, errors and time of the traced calls", activity},
    {"iodetail", "I/O by file descriptor (and the file it named)", detail},
    {"iocallstack", "I/O by call stack, with the frames of each", callstack},
};
const size_t kViewCount = sizeof kViews / sizeof kViews[0];

}  // namespace io_plugin
