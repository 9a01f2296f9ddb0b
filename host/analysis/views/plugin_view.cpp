#include "plugin_view.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "data_file_reader.h"

namespace lumen::analysis {

namespace {

struct ViewRun {
  std::string plugin;
  const std::vector<std::unique_ptr<Experiment>>* experiments;
  ProgramStructure* structure;
  const Experiment* current = nullptr;  // experiment whose records are being visited
  size_t current_index = 0;
  EventFilter selection;
  Record summary;
  std::vector<ViewTable> tables;
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
      if (!std::filesystem::exists(std::filesystem::symlink_status(path))) continue;
      read_data_file(
          path, [&](const RawRecord& r) { visit(arg, r.kind, r.payload, r.payload_bytes, r.block_thread_id); },
          file.readable_bytes);
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

// The frames of a stack of the experiment being visited, resolved in the
// load-object map's state `epoch` (nullopt: the final one).
std::vector<StackFrame> frames_of(ViewRun& run, uint64_t stack_id, std::optional<uint32_t> at_epoch = std::nullopt) {
  std::vector<StackFrame> frames;
  if (stack_id == LUMEN_NO_STACK || run.current == nullptr) return frames;
  const auto pcs = run.current->stacks().pcs(stack_id);
  const uint32_t flags = run.current->stacks().flags(stack_id);
  const LoadObjectMap& map = run.current->loadobjects();
  const uint32_t epoch = at_epoch.value_or(map.latest_epoch());
  for (size_t i = 0; i < pcs.size(); ++i) {
    const bool is_return = i > 0 || (flags & LUMEN_STACK_LEAF_IS_RETURN) != 0;
    const FunctionId f = run.structure->function_at(map, epoch, pcs[i], is_return);
    frames.push_back({run.structure->function(f).name, run.structure->object(run.structure->function(f).object).name});
  }
  return frames;
}

size_t frame_names(ViewRun* run, const std::vector<StackFrame>& frames, lumen_frame_name* out, size_t max) {
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

size_t stack_frames(void* context, uint64_t stack_id, lumen_frame_name* out, size_t max) {
  auto* run = static_cast<ViewRun*>(context);
  return frame_names(run, frames_of(*run, stack_id), out, max);
}

uint32_t map_epoch(void* context, uint64_t time_ns) {
  const auto* run = static_cast<const ViewRun*>(context);
  return run->current == nullptr ? 0 : run->current->loadobjects().epoch_at(time_ns);
}

size_t stack_frames_at(void* context, uint64_t stack_id, uint64_t time_ns, lumen_frame_name* out, size_t max) {
  auto* run = static_cast<ViewRun*>(context);
  if (run->current == nullptr) return 0;
  return frame_names(run, frames_of(*run, stack_id, run->current->loadobjects().epoch_at(time_ns)), out, max);
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
  static_cast<ViewRun*>(context)->summary.add_number(key, label, shown(unit, value), {unit});
}

void table_begin(void* context, const char* title, const lumen_view_column* columns, size_t count) {
  ViewTable table;
  table.title = title;
  table.stacks = true;
  for (size_t i = 0; i < count; ++i) table.columns.push_back({columns[i].key, "", columns[i].title, columns[i].unit, false});
  table.name_position = table.columns.size();
  static_cast<ViewRun*>(context)->tables.push_back(std::move(table));
}

void table_row(void* context, const char* name, const double* values, uint64_t stack_id) {
  auto* run = static_cast<ViewRun*>(context);
  if (run->tables.empty()) return;
  ViewTable& table = run->tables.back();
  ViewRow row;
  row.name = name;
  row.stack = frames_of(*run, stack_id);
  for (size_t i = 0; i < table.columns.size(); ++i) row.values.push_back(shown(table.columns[i].unit, values[i]));
  table.rows.push_back(std::move(row));
}

void table_row_frames(void* context, const char* name, const double* values, const lumen_frame_name* frames,
                      size_t frame_count) {
  auto* run = static_cast<ViewRun*>(context);
  if (run->tables.empty()) return;
  ViewTable& table = run->tables.back();
  ViewRow row;
  row.name = name;
  for (size_t i = 0; i < frame_count; ++i) row.stack.push_back({frames[i].function, frames[i].load_object});
  for (size_t i = 0; i < table.columns.size(); ++i) row.values.push_back(shown(table.columns[i].unit, values[i]));
  table.rows.push_back(std::move(row));
}

}  // namespace

Document run_plugin_view(const lumen_view_def& view, const std::string& plugin,
                         const std::vector<std::unique_ptr<Experiment>>& experiments, ProgramStructure& structure,
                         size_t row_limit, const EventFilter& selection) {
  ViewRun run;
  run.plugin = plugin;
  run.experiments = &experiments;
  run.structure = &structure;
  run.selection = selection;
  lumen_view_host host{};
  host.context = &run;
  host.for_each_record = for_each_record;
  host.stack_frames = stack_frames;
  host.data_symbol = data_symbol;
  host.summary = summary;
  host.table_begin = table_begin;
  host.table_row = table_row;
  host.row_limit = row_limit;
  host.selected = selected;
  host.map_epoch = map_epoch;
  host.stack_frames_at = stack_frames_at;
  host.table_row_frames = table_row_frames;
  char error[512] = "";
  if (view.run(&host, error, sizeof error) != 0) throw std::runtime_error(std::string(view.command) + ": " + error);
  Document document{view.command, "", {RecordList{"summary", "", "", RecordLayout::Members, {std::move(run.summary)}}},
                    std::move(run.tables), true};
  return document;
}

}  // namespace lumen::analysis
