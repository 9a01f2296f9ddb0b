#include "plugin_view.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "data_file_reader.h"

namespace lumen::analysis {

namespace {

struct Frame {
  std::string function;
  std::string load_object;
};

struct Row {
  std::string name;
  std::vector<double> values;
  std::vector<Frame> stack;
};

struct Table {
  std::string title;
  std::vector<ViewColumn> columns;
  std::vector<Row> rows;
};

struct Summary {
  std::string key;
  std::string label;
  double value;
  lumen_metric_unit unit;
};

struct ViewRun {
  std::string plugin;
  const std::vector<std::unique_ptr<Experiment>>* experiments;
  ProgramStructure* structure;
  const Experiment* current = nullptr;  // experiment whose records are being visited
  size_t current_index = 0;
  EventFilter selection;
  std::vector<Summary> summaries;
  std::vector<Table> tables;
  std::vector<std::string> names;  // storage behind lumen_frame_name pointers
};

double shown(lumen_metric_unit unit, double raw) { return unit == LUMEN_UNIT_NANOSECONDS ? raw / 1e9 : raw; }

void for_each_record(void* context, void (*visit)(void*, uint16_t, const void*, uint16_t, uint32_t), void* arg) {
  auto* run = static_cast<ViewRun*>(context);
  for (size_t e = 0; e < run->experiments->size(); ++e) {
    const auto& experiment = (*run->experiments)[e];
    run->current = experiment.get();
    run->current_index = e;
    for (const DataFile& file : experiment->data_files()) {
      if (file.plugin != run->plugin) continue;
      const auto path = experiment->path() / file.name;
      if (!std::filesystem::exists(path)) continue;
      read_data_file(path, [&](const RawRecord& r) { visit(arg, r.kind, r.payload, r.payload_bytes, r.block_thread_id); });
    }
  }
}

int selected(void* context, uint64_t time_ns, uint32_t thread_id) {
  const auto* run = static_cast<const ViewRun*>(context);
  if (!run->selection || run->current == nullptr) return 1;
  lumen_event event{};
  event.time_ns = time_ns;
  event.stack_id = LUMEN_NO_STACK;
  event.thread_id = thread_id;
  event.cpu = -1;
  return run->selection(run->current_index, event) ? 1 : 0;
}

std::vector<Frame> frames_of(ViewRun& run, uint64_t stack_id) {
  std::vector<Frame> frames;
  if (stack_id == LUMEN_NO_STACK || run.current == nullptr) return frames;
  const auto pcs = run.current->stacks().pcs(stack_id);
  const uint32_t flags = run.current->stacks().flags(stack_id);
  const LoadObjectMap& map = run.current->loadobjects();
  const uint32_t epoch = map.latest_epoch();  // a plugin's view resolves against the final map
  for (size_t i = 0; i < pcs.size(); ++i) {
    const bool is_return = i > 0 || (flags & LUMEN_STACK_LEAF_IS_RETURN) != 0;
    const FunctionId f = run.structure->function_at(map, epoch, pcs[i], is_return);
    frames.push_back({run.structure->function(f).name, run.structure->object(run.structure->function(f).object).name});
  }
  return frames;
}

size_t stack_frames(void* context, uint64_t stack_id, lumen_frame_name* out, size_t max) {
  auto* run = static_cast<ViewRun*>(context);
  const std::vector<Frame> frames = frames_of(*run, stack_id);
  run->names.clear();
  run->names.reserve(frames.size() * 2);
  size_t n = 0;
  for (; n < frames.size() && n < max; ++n) {
    run->names.push_back(frames[n].function);
    run->names.push_back(frames[n].load_object);
  }
  for (size_t i = 0; i < n; ++i) out[i] = {run->names[2 * i].c_str(), run->names[2 * i + 1].c_str()};
  return n;
}

const char* data_symbol(void* context, uint64_t address) {
  auto* run = static_cast<ViewRun*>(context);
  if (run->current == nullptr) return nullptr;
  const auto name = run->structure->data_symbol(run->current->loadobjects(), address);
  if (!name) return nullptr;
  run->names.push_back(*name);
  return run->names.back().c_str();
}

void summary(void* context, const char* key, const char* label, double value, lumen_metric_unit unit) {
  static_cast<ViewRun*>(context)->summaries.push_back({key, label, value, unit});
}

void table_begin(void* context, const char* title, const lumen_view_column* columns, size_t count) {
  Table table{title, {}, {}};
  for (size_t i = 0; i < count; ++i) table.columns.push_back({columns[i].key, "", columns[i].title, columns[i].unit, false});
  static_cast<ViewRun*>(context)->tables.push_back(std::move(table));
}

void table_row(void* context, const char* name, const double* values, uint64_t stack_id) {
  auto* run = static_cast<ViewRun*>(context);
  if (run->tables.empty()) return;
  Table& table = run->tables.back();
  Row row{name, {}, frames_of(*run, stack_id)};
  for (size_t i = 0; i < table.columns.size(); ++i) row.values.push_back(shown(table.columns[i].unit, values[i]));
  table.rows.push_back(std::move(row));
}

std::string number(const ViewColumn& c, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, c.unit == LUMEN_UNIT_NANOSECONDS ? "%.6f" : "%.0f", v);
  return buffer;
}

std::string render_output(const std::string& view, const ViewRun& run, OutputFormat format) {
  std::ostringstream out;
  if (format == OutputFormat::Json) {
    out << "{\"view\": " << json_string(view) << ", \"summary\": {";
    for (size_t i = 0; i < run.summaries.size(); ++i) {
      const Summary& s = run.summaries[i];
      char v[64];
      std::snprintf(v, sizeof v, "%.9g", shown(s.unit, s.value));
      out << (i ? ", " : "") << json_string(s.key) << ": " << v;
    }
    out << "}, \"tables\": [";
    for (size_t t = 0; t < run.tables.size(); ++t) {
      const Table& table = run.tables[t];
      out << (t ? ", " : "") << "{\"title\": " << json_string(table.title) << ", \"metrics\": [";
      for (size_t c = 0; c < table.columns.size(); ++c)
        out << (c ? ", " : "") << "{\"spec\": " << json_string(table.columns[c].key)
            << ", \"title\": " << json_string(table.columns[c].title) << "}";
      out << "], \"rows\": [";
      for (size_t r = 0; r < table.rows.size(); ++r) {
        const Row& row = table.rows[r];
        out << (r ? ",\n  " : "\n  ") << "{\"name\": " << json_string(row.name) << ", \"values\": {";
        for (size_t c = 0; c < table.columns.size(); ++c)
          out << (c ? ", " : "") << json_string(table.columns[c].key) << ": " << number(table.columns[c], row.values[c]);
        out << "}, \"stack\": [";
        for (size_t f = 0; f < row.stack.size(); ++f)
          out << (f ? ", " : "") << "{\"function\": " << json_string(row.stack[f].function)
              << ", \"load_object\": " << json_string(row.stack[f].load_object) << "}";
        out << "]}";
      }
      out << "]}";
    }
    out << "]}\n";
  } else if (format == OutputFormat::Csv) {
    for (const Summary& s : run.summaries) {
      char v[64];
      std::snprintf(v, sizeof v, "%.9g", shown(s.unit, s.value));
      out << "summary," << s.key << "," << v << "\n";
    }
    for (const Table& table : run.tables) {
      out << "table,name";
      for (const ViewColumn& c : table.columns) out << "," << c.key;
      out << ",stack\n";
      for (const Row& row : table.rows) {
        out << json_string(table.title) << "," << json_string(row.name);
        for (size_t c = 0; c < table.columns.size(); ++c) out << "," << number(table.columns[c], row.values[c]);
        std::string stack;
        for (const Frame& f : row.stack) stack += (stack.empty() ? "" : ";") + f.function;
        out << "," << json_string(stack) << "\n";
      }
    }
  } else {
    for (const Summary& s : run.summaries) {
      char v[64];
      std::snprintf(v, sizeof v, s.unit == LUMEN_UNIT_NANOSECONDS ? "%.6f" : "%.0f", shown(s.unit, s.value));
      out << s.label << ": " << v << (s.unit == LUMEN_UNIT_NANOSECONDS ? " s" : "") << "\n";
    }
    for (const Table& table : run.tables) {
      // Each column as wide as its title or its widest cell, two apart.
      std::vector<std::vector<std::string>> cells(table.rows.size());
      std::vector<size_t> widths;
      for (const ViewColumn& c : table.columns) widths.push_back(c.title.size());
      for (size_t r = 0; r < table.rows.size(); ++r)
        for (size_t c = 0; c < table.columns.size(); ++c) {
          cells[r].push_back(number(table.columns[c], table.rows[r].values[c]));
          widths[c] = std::max(widths[c], cells[r].back().size());
        }
      const auto pad = [&out](const std::string& text, size_t width) {
        out << std::string(width + 2 - text.size(), ' ') << text;
      };
      out << "\n" << table.title << "\n";
      for (size_t c = 0; c < table.columns.size(); ++c) pad(table.columns[c].title, widths[c]);
      out << "  Name\n";
      for (size_t r = 0; r < table.rows.size(); ++r) {
        for (size_t c = 0; c < table.columns.size(); ++c) pad(cells[r][c], widths[c]);
        out << "  " << table.rows[r].name << "\n";
        for (const Frame& f : table.rows[r].stack) out << std::string(16, ' ') << f.function << " (" << f.load_object << ")\n";
      }
    }
  }
  return out.str();
}

}  // namespace

std::string run_plugin_view(const lumen_view_def& view, const std::string& plugin,
                            const std::vector<std::unique_ptr<Experiment>>& experiments, ProgramStructure& structure,
                            size_t row_limit, OutputFormat format, const EventFilter& selection) {
  ViewRun run;
  run.plugin = plugin;
  run.experiments = &experiments;
  run.structure = &structure;
  run.selection = selection;
  const lumen_view_host host{&run,       for_each_record, stack_frames, data_symbol, summary,
                             table_begin, table_row,       row_limit,    selected};
  char error[512] = "";
  if (view.run(&host, error, sizeof error) != 0) throw std::runtime_error(std::string(view.command) + ": " + error);
  return render_output(view.command, run, format);
}

}  // namespace lumen::analysis
