#include "plugin_view.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "analysis_threads.h"
#include "data_file_reader.h"
#include "format_error.h"
#include "progress.h"

namespace lumen::analysis {

namespace {

struct ViewRun;

// What a host call is about: the records of one experiment (those
// for_each_record is visiting, or a part's), and for record_failed, where
// the record being visited lies and what the view said of it.
struct RecordScope {
  ViewRun* run = nullptr;
  const Experiment* experiment = nullptr;
  size_t experiment_index = 0;
  std::filesystem::path file;
  uint64_t offset = 0;  // of the record being visited
  std::optional<std::string> failure;
  std::exception_ptr read_failure;  // the reader's own (a part on another thread)
};

struct ViewRun {
  std::string plugin;
  const std::vector<std::unique_ptr<Experiment>>* experiments;
  ProgramStructure* structure;
  RecordScope top;  // host.context: for_each_record's records, and the view's own calls
  std::vector<std::unique_ptr<RecordScope>> parts;  // each part's context, until the view returns
  EventFilter selection;
  DecodedEvents decoded;
  Record summary;
  std::vector<ViewTable> tables;
  std::vector<std::string> names;  // storage behind lumen_frame_name pointers
  std::set<std::string> line_files;  // behind lumen_frame_line pointers, until the view returns
  PluginReadings read_now;  // what kept() built and the session keeps not: freed after the view
  const RowPassing* passing = nullptr;
};

// Thrown out of a record visitor to stop reading after record_failed.
struct StopReading {};

double shown(lumen_metric_unit unit, double raw) { return unit == LUMEN_UNIT_NANOSECONDS ? raw / 1e9 : raw; }

using RecordVisit = void (*)(void*, uint16_t, const void*, uint16_t, uint32_t);

// Visits records as `read` yields them, noting each one's place in `scope`;
// stops at the first record the view could not read.
template <typename Read>
void visit_records(RecordScope& scope, RecordVisit visit, void* arg, Read&& read) {
  try {
    read([&](const RawRecord& r) {
      scope.offset = r.offset;
      visit(arg, r.kind, r.payload, r.payload_bytes, r.block_thread_id);
      if (scope.failure) throw StopReading{};
    });
  } catch (const StopReading&) {
  }
}

void for_each_record(void* context, RecordVisit visit, void* arg) {
  auto& scope = *static_cast<RecordScope*>(context);
  ViewRun& run = *scope.run;
  for (size_t e = 0; e < run.experiments->size() && !scope.failure; ++e) {
    const auto& experiment = (*run.experiments)[e];
    scope.experiment = experiment.get();
    scope.experiment_index = e;
    for (const DataFile& file : experiment->data_files()) {
      if (file.plugin != run.plugin || scope.failure) continue;
      scope.file = experiment->path() / file.name;
      if (!std::filesystem::exists(std::filesystem::symlink_status(scope.file))) continue;
      // One file read whole (a view that pairs events in time order): its
      // progress is how far into the file the records are, asked at each
      // block, not at each record.
      std::error_code size_error;
      const uint64_t size = std::min<uint64_t>(std::filesystem::file_size(scope.file, size_error), file.readable_bytes);
      Progress progress("reading " + file.name);
      uint64_t block_shown = UINT64_MAX;
      visit_records(scope, visit, arg, [&](const std::function<void(const RawRecord&)>& record) {
        read_data_file(
            scope.file,
            [&](const RawRecord& r) {
              if (r.offset / LUMEN_BLOCK_BYTES != block_shown && !size_error) {
                block_shown = r.offset / LUMEN_BLOCK_BYTES;
                progress.update(r.offset, size);
              }
              record(r);
            },
            file.readable_bytes);
      });
    }
  }
}

void for_each_record_in_parts(void* context, void* (*begin_part)(void*, const lumen_record_part*), RecordVisit visit,
                              void* arg) {
  ViewRun& run = *static_cast<RecordScope*>(context)->run;
  struct Part {
    RecordScope* scope;
    const DataFile* file;
    size_t first_block, end_block;
    void* state;
  };
  std::vector<Part> parts;
  for (size_t e = 0; e < run.experiments->size(); ++e) {
    const Experiment& experiment = *(*run.experiments)[e];
    for (const DataFile& file : experiment.data_files()) {
      const auto path = experiment.path() / file.name;
      if (file.plugin != run.plugin || !std::filesystem::exists(std::filesystem::symlink_status(path))) continue;
      const size_t blocks = file.block_offsets.size();
      const size_t per_part = blocks_per_part(blocks);
      for (size_t b = 0; b < blocks; b += per_part) {
        auto scope = std::make_unique<RecordScope>();
        *scope = RecordScope{&run, &experiment, e, path, 0, std::nullopt, nullptr};
        parts.push_back({scope.get(), &file, b, std::min(blocks, b + per_part), nullptr});
        run.parts.push_back(std::move(scope));
      }
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    const lumen_record_part part{i, parts[i].scope->experiment_index, parts[i].scope};
    parts[i].state = begin_part(arg, &part);
  }
  Progress progress("reading events");
  run_parts(
      parts.size(),
      [&](size_t i) {
        Part& part = parts[i];
        RecordScope& scope = *part.scope;
        try {
          visit_records(scope, visit, part.state, [&](const std::function<void(const RawRecord&)>& record) {
            read_data_blocks(scope.file,
                             std::span(part.file->block_offsets).subspan(part.first_block, part.end_block - part.first_block),
                             record);
          });
        } catch (...) {
          scope.read_failure = std::current_exception();
        }
      },
      [&](size_t finished) { progress.update(finished, parts.size()); });
  // The first part in the file that the reader could not read ends the
  // view as one pass would (a part the view failed on before it is the
  // view's failure).
  for (const Part& part : parts) {
    if (part.scope->failure) return;
    if (part.scope->read_failure) std::rethrow_exception(part.scope->read_failure);
  }
}

void record_failed(void* context, const char* message) {
  auto& scope = *static_cast<RecordScope*>(context);
  if (!scope.failure) scope.failure = FormatError(scope.file.string(), scope.offset, message ? message : "").what();
}

// The failure to report for a view: the first in the file of its parts', or
// its one pass's.
const std::optional<std::string>& record_failure(const ViewRun& run) {
  for (const auto& part : run.parts)
    if (part->failure) return part->failure;
  return run.top.failure;
}

int selected(void* context, uint64_t time_ns, uint32_t thread_id) {
  const auto& scope = *static_cast<const RecordScope*>(context);
  if (!scope.run->selection || scope.experiment == nullptr) return 1;
  lumen_event event{};
  event.time_ns = time_ns;
  event.stack_id = LUMEN_NO_STACK;
  event.thread_id = thread_id;
  event.cpu = -1;
  return scope.run->selection(scope.experiment_index, event) ? 1 : 0;
}

// The frames of a stack of an experiment, resolved in the load-object map's
// state `epoch` (nullopt: the final one).
std::vector<StackFrame> frames_of(ViewRun& run, const Experiment* experiment, uint64_t stack_id,
                                  std::optional<uint32_t> at_epoch = std::nullopt) {
  std::vector<StackFrame> frames;
  if (stack_id == LUMEN_NO_STACK || experiment == nullptr) return frames;
  const auto pcs = experiment->stacks().pcs(stack_id);
  const uint32_t flags = experiment->stacks().flags(stack_id);
  const LoadObjectMap& map = experiment->loadobjects();
  const uint32_t epoch = at_epoch.value_or(map.latest_epoch());
  for (size_t i = 0; i < pcs.size(); ++i) {
    const bool is_return = i > 0 || (flags & LUMEN_STACK_LEAF_IS_RETURN) != 0;
    const FunctionId f = run.structure->function_at(map, epoch, pcs[i], is_return);
    frames.push_back({run.structure->name_beside_object(f), run.structure->object(run.structure->function(f).object).name});
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

uint32_t map_epoch(void* context, uint64_t time_ns) {
  const auto& scope = *static_cast<const RecordScope*>(context);
  return scope.experiment == nullptr ? 0 : scope.experiment->loadobjects().epoch_at(time_ns);
}

size_t stack_frames_at(void* context, uint64_t stack_id, uint64_t time_ns, lumen_frame_name* out, size_t max) {
  const auto& scope = *static_cast<RecordScope*>(context);
  if (scope.experiment == nullptr) return 0;
  return frame_names(scope.run,
                     frames_of(*scope.run, scope.experiment, stack_id, scope.experiment->loadobjects().epoch_at(time_ns)),
                     out, max);
}

size_t stack_lines_at(void* context, uint64_t stack_id, uint64_t time_ns, lumen_frame_line* out, size_t max) {
  const auto& scope = *static_cast<RecordScope*>(context);
  const Experiment* experiment = scope.experiment;
  if (experiment == nullptr || stack_id == LUMEN_NO_STACK) return 0;
  ViewRun& run = *scope.run;
  const auto pcs = experiment->stacks().pcs(stack_id);
  const uint32_t flags = experiment->stacks().flags(stack_id);
  const LoadObjectMap& map = experiment->loadobjects();
  const uint32_t epoch = map.epoch_at(time_ns);
  size_t n = 0;
  for (; n < pcs.size() && n < max; ++n) {
    out[n] = {nullptr, 0, 0};
    const bool is_return = n > 0 || (flags & LUMEN_STACK_LEAF_IS_RETURN) != 0;
    const auto code = run.structure->code_address(map, epoch, pcs[n], is_return);
    const ObjectSymbols* symbols = code ? run.structure->symbols(code->object) : nullptr;
    const auto line = symbols != nullptr ? symbols->source_line(code->address) : std::nullopt;
    if (!line) continue;
    out[n] = {run.line_files.insert(line->file).first->c_str(), line->line, 0};
  }
  return n;
}

const char* data_symbol(void* context, uint64_t address) {
  const auto& scope = *static_cast<RecordScope*>(context);
  if (scope.experiment == nullptr) return nullptr;
  const auto name = scope.run->structure->data_symbol(scope.experiment->loadobjects(), address);
  if (!name) return nullptr;
  scope.run->names.push_back(*name);
  return scope.run->names.back().c_str();
}

// The decoded profile's sums of the plugin's `metrics`, per (experiment,
// map epoch, recorded stack) in the order of their first event: the
// unique stacks of a recorded one differ by the traced call at their leaf
// and by the stitches of the view mode, which a record never has.
int stack_sums(void* context, const char* const* metrics, size_t metric_count,
               void (*visit)(void*, const lumen_frame_name*, size_t, const double*), void* arg) {
  ViewRun& run = *static_cast<RecordScope*>(context)->run;
  const StackProfile* profile = run.decoded.profile;
  if (profile == nullptr || run.decoded.registry == nullptr || metrics == nullptr || metric_count == 0 ||
      visit == nullptr)
    return 0;
  std::vector<size_t> slots;
  for (size_t m = 0; m < metric_count; ++m) {
    const auto slot = metrics[m] != nullptr ? run.decoded.registry->find(metrics[m]) : std::nullopt;
    if (!slot || run.decoded.registry->plugin_of(*slot) != run.plugin) return 0;
    slots.push_back(*slot);
  }
  struct Sum {
    uint32_t experiment, epoch;
    uint64_t stack_id;
    size_t first_value;
  };
  std::vector<Sum> sums;
  std::vector<double> values;
  struct KeyHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& k) const {
      return std::hash<uint64_t>()(k.first * 0x9e3779b97f4a7c15ull ^ k.second);
    }
  };
  std::unordered_map<std::pair<uint64_t, uint64_t>, size_t, KeyHash> index;
  for (size_t i = 0; i < profile->stacks().size(); ++i) {
    const std::span<const int64_t> row = profile->values(i);
    if (std::all_of(slots.begin(), slots.end(), [&](size_t slot) { return row[slot] == 0; })) continue;
    const UniqueStack& unique = profile->stacks()[i];
    const uint64_t recorded = (*run.experiments)[unique.experiment]->recorded_stack(unique.stack_id);
    const auto [it, inserted] =
        index.try_emplace({uint64_t{unique.experiment} << 32 | unique.epoch, recorded}, sums.size());
    if (inserted) {
      sums.push_back({unique.experiment, unique.epoch, recorded, values.size()});
      values.resize(values.size() + slots.size(), 0.0);
    }
    for (size_t m = 0; m < slots.size(); ++m) values[sums[it->second].first_value + m] += static_cast<double>(row[slots[m]]);
  }
  std::vector<lumen_frame_name> names(LUMEN_MAX_STACK_DEPTH);
  for (const Sum& sum : sums) {
    const Experiment* experiment = (*run.experiments)[sum.experiment].get();
    std::vector<StackFrame> frames;
    if (is_artificial_stack(sum.stack_id))
      frames.push_back({experiment->artificial_function(sum.stack_id), "<Unknown>"});
    else
      frames = frames_of(run, experiment, sum.stack_id, sum.epoch);
    const size_t n = frame_names(&run, frames, names.data(), names.size());
    visit(arg, names.data(), n, values.data() + sum.first_value);
  }
  return 1;
}

// The plugin's object under `key`: the session's, else built now and kept
// by the session (or, without a session's store or after a record the view
// could not read, until the view returns; a failure of the reader itself
// is an exception, out of build).
void* kept(void* context, const char* key, void* (*build)(void*), void (*release)(void*), void* arg) {
  ViewRun& run = *static_cast<RecordScope*>(context)->run;
  if (key == nullptr || build == nullptr) return nullptr;
  if (run.decoded.readings != nullptr)
    if (const auto found = run.decoded.readings->find(run.plugin, key)) {
      // Rows' stacks resolve where they would after the reading itself.
      run.top.experiment = found->last_experiment;
      run.top.experiment_index = found->last_experiment_index;
      return found->object;
    }
  void* object = build(arg);
  if (object == nullptr) return nullptr;
  const bool failed = record_failure(run).has_value();
  (run.decoded.readings != nullptr && !failed ? *run.decoded.readings : run.read_now)
      .keep(run.plugin, key, object, release, run.top.experiment, run.top.experiment_index);
  return object;
}

int64_t clock_shift_ns(void* context) {
  const auto& scope = *static_cast<const RecordScope*>(context);
  return scope.experiment == nullptr ? 0 : scope.experiment->clock_shift_ns();
}

uint32_t experiment_number(void* context) {
  const auto& scope = *static_cast<const RecordScope*>(context);
  return scope.experiment == nullptr ? 0 : static_cast<uint32_t>(scope.experiment_index + 1);
}

uint64_t experiment_start_ns(void* context) {
  const auto& scope = *static_cast<const RecordScope*>(context);
  return scope.experiment == nullptr ? 0 : scope.experiment->start_ns();
}

void summary(void* context, const char* key, const char* label, double value, lumen_metric_unit unit) {
  static_cast<RecordScope*>(context)->run->summary.add_number(key, label, shown(unit, value), {unit});
}

void table_begin(void* context, const char* title, const lumen_view_column* columns, size_t count) {
  ViewTable table;
  table.title = title;
  table.stacks = true;
  for (size_t i = 0; i < count; ++i) table.columns.push_back({columns[i].key, "", columns[i].title, columns[i].unit, false});
  table.name_position = table.columns.size();
  static_cast<RecordScope*>(context)->run->tables.push_back(std::move(table));
}

// Holds `row` in the view's last table, or hands it on (RowPassing).
void add_row(ViewRun& run, ViewRow row) {
  ViewTable& table = run.tables.back();
  if (run.passing == nullptr) {
    table.rows.push_back(std::move(row));
    return;
  }
  run.passing->pass(run.tables.size() - 1, table, row);
  if (table.rows_passed) return;
  if (table.rows.size() < run.passing->hold) {
    table.rows.push_back(std::move(row));
    return;
  }
  table.rows_passed = true;
  std::vector<ViewRow>().swap(table.rows);
}

void table_row(void* context, const char* name, const double* values, uint64_t stack_id) {
  const auto& scope = *static_cast<RecordScope*>(context);
  ViewRun* run = scope.run;
  if (run->tables.empty()) return;
  ViewTable& table = run->tables.back();
  ViewRow row;
  row.name = name;
  row.stack = frames_of(*run, scope.experiment, stack_id);
  for (size_t i = 0; i < table.columns.size(); ++i) row.values.push_back(shown(table.columns[i].unit, values[i]));
  add_row(*run, std::move(row));
}

void table_row_frames(void* context, const char* name, const double* values, const lumen_frame_name* frames,
                      size_t frame_count) {
  ViewRun* run = static_cast<RecordScope*>(context)->run;
  if (run->tables.empty()) return;
  ViewTable& table = run->tables.back();
  ViewRow row;
  row.name = name;
  for (size_t i = 0; i < frame_count; ++i) row.stack.push_back({frames[i].function, frames[i].load_object});
  for (size_t i = 0; i < table.columns.size(); ++i) row.values.push_back(shown(table.columns[i].unit, values[i]));
  add_row(*run, std::move(row));
}

}  // namespace

Document run_plugin_view(const lumen_view_def& view, const std::string& plugin,
                         const std::vector<std::unique_ptr<Experiment>>& experiments, ProgramStructure& structure,
                         size_t row_limit, const EventFilter& selection, const DecodedEvents& decoded,
                         const RowPassing* passing) {
  ViewRun run;
  run.passing = passing;
  run.plugin = plugin;
  run.experiments = &experiments;
  run.structure = &structure;
  run.selection = selection;
  run.decoded = decoded;
  run.top.run = &run;
  lumen_view_host host{};
  host.size = sizeof host;
  host.context = &run.top;
  host.for_each_record = for_each_record;
  host.data_symbol = data_symbol;
  host.summary = summary;
  host.table_begin = table_begin;
  host.table_row = table_row;
  host.row_limit = row_limit;
  host.selected = selected;
  host.map_epoch = map_epoch;
  host.stack_frames_at = stack_frames_at;
  host.table_row_frames = table_row_frames;
  host.for_each_record_in_parts = for_each_record_in_parts;
  host.record_failed = record_failed;
  host.stack_lines_at = stack_lines_at;
  host.stack_sums = stack_sums;
  host.clock_shift_ns = clock_shift_ns;
  host.kept = kept;
  host.experiment_number = experiment_number;
  host.experiment_start_ns = experiment_start_ns;
  char error[512] = "";
  const int failed = view.run(&host, error, sizeof error);
  if (const auto& record = record_failure(run)) throw std::runtime_error(std::string(view.command) + ": " + *record);
  if (failed != 0) throw std::runtime_error(std::string(view.command) + ": " + error);
  Document document{view.command, "", {RecordList{"summary", "", "", RecordLayout::Members, {std::move(run.summary)}}},
                    std::move(run.tables), true};
  return document;
}

}  // namespace lumen::analysis
