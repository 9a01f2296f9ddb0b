// What a view shows, independent of how it is printed: columns of metric
// values and rows of named program objects (for callers-callees, each row
// with its callers and callees; for a plugin's table, each row with a stack).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cell_text.h"

namespace lumen::analysis {

struct ViewColumn {
  std::string key;     // "e.user", "e.%user"
  std::string flavor;  // "Excl.", "Incl.", "Attr."; empty in plugins' tables
  std::string title;   // "User CPU Time"
  lumen_metric_unit unit = LUMEN_UNIT_COUNT;
  bool percent = false;
  Quantity quantity() const { return {unit, percent}; }
};

struct StackFrame {
  std::string function;
  std::string load_object;
};

struct ViewRow {
  std::string name;
  std::string load_object;
  std::vector<double> values;  // per column; times in seconds, percents in %
  std::vector<ViewRow> callers;
  std::vector<ViewRow> callees;
  // Calltree: the depth of the node below the root (names are indented).
  int depth = 0;
  // Annotated source and disassembly: "##" on lines above the threshold.
  std::string marker{};
  // Further facts of the row (line number, address, source text), in order;
  // extra keys in JSON and CSV.
  std::vector<std::pair<std::string, std::string>> fields{};
  // A plugin's table: the call stack the row stands for, leaf first.
  std::vector<StackFrame> stack{};
};

struct ViewTable {
  std::string view;   // "functions", "callers-callees", "objects"
  std::string title;  // first line of the text form
  std::vector<ViewColumn> columns;
  size_t name_position = 0;
  bool nested = false;  // rows carry callers and callees
  bool tree = false;    // rows carry a depth (calltree)
  bool stacks = false;  // rows carry a stack (plugins' tables)
  bool rows_passed = false;  // more rows than were held went on as they came (plugin_view.h RowPassing)
  std::vector<ViewRow> rows;
};

}  // namespace lumen::analysis
