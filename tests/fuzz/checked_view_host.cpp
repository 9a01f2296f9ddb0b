#include "checked_view_host.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "checked_sink.h"

namespace lumen::fuzz {

namespace {

volatile uint64_t g_sink;

const lumen_frame_name kFrames[] = {{"main", "a.out"},
                                    {"MPI_Send", "libmpi.so.40"},
                                    {"malloc", "libc.so.6"},
                                    {"pthread_mutex_lock", "libc.so.6"},
                                    {"main._omp_fn.0", "a.out"},
                                    {"java.lang.Thread.run()", "<dynamic code>"}};
constexpr size_t kFrameNames = sizeof kFrames / sizeof kFrames[0];

struct ViewRun;

// host.context: the records one pass or one part visits.
struct Scope {
  ViewRun* run;
  size_t first_record;
  size_t end_record;
  bool failed = false;
};

struct ViewRun {
  const DecoderInput* input;
  const std::vector<size_t>* part_starts;
  uint32_t unselected;
  size_t columns = 0;
  bool table_begun = false;
  std::vector<std::unique_ptr<Scope>> parts;
};

Scope& scope(void* context) { return *static_cast<Scope*>(context); }

using Visit = void (*)(void*, uint16_t, const void*, uint16_t, uint32_t);

void visit_records(Scope& s, Visit visit, void* arg) {
  for (size_t i = s.first_record; i < s.end_record && !s.failed; ++i) {
    const InputRecord& record = s.run->input->records[i];
    const PayloadCopy payload(record);
    visit(arg, record.kind, payload.data(), record.payload_bytes, record.thread_id);
  }
}

void for_each_record(void* context, Visit visit, void* arg) { visit_records(scope(context), visit, arg); }

// Parts begin in file order on the view's thread, then are visited; er_print
// visits them on several threads at once, here one after another.
void for_each_record_in_parts(void* context, void* (*begin_part)(void*, const lumen_record_part*), Visit visit,
                              void* arg) {
  ViewRun& run = *scope(context).run;
  const std::vector<size_t>& starts = *run.part_starts;
  std::vector<std::pair<Scope*, void*>> parts;
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t end = i + 1 < starts.size() ? starts[i + 1] : run.input->records.size();
    run.parts.push_back(std::make_unique<Scope>(Scope{&run, starts[i], end}));
    const lumen_record_part part{i, 0, run.parts.back().get()};
    parts.emplace_back(run.parts.back().get(), begin_part(arg, &part));
  }
  for (auto& [part, state] : parts) visit_records(*part, visit, state);
}

void record_failed(void* context, const char* message) {
  read_string(message, true, "record failure");
  scope(context).failed = true;
}

size_t stack_frames(void*, uint64_t stack_id, lumen_frame_name* frames, size_t max_frames) {
  if (stack_id == LUMEN_NO_STACK) return 0;
  size_t n = 0;
  for (; n < stack_id % 4 + 1 && n < max_frames; ++n) frames[n] = kFrames[(stack_id + n) % kFrameNames];
  return n;
}

size_t stack_frames_at(void* context, uint64_t stack_id, uint64_t, lumen_frame_name* frames, size_t max_frames) {
  return stack_frames(context, stack_id, frames, max_frames);
}

const char* data_symbol(void*, uint64_t address) { return address % 3 == 0 ? "g_lock" : nullptr; }

void summary(void*, const char* key, const char* label, double value, lumen_metric_unit unit) {
  g_sink = read_string(key, false, "summary key") + read_string(label, false, "summary label") +
           static_cast<uint64_t>(value != value) + unit;
}

void table_begin(void* context, const char* title, const lumen_view_column* columns, size_t count) {
  ViewRun& run = *scope(context).run;
  read_string(title, false, "table title");
  for (size_t i = 0; i < count; ++i)
    g_sink = read_string(columns[i].key, false, "column key") + read_string(columns[i].title, false, "column title") +
             columns[i].unit;
  run.columns = count;
  run.table_begun = true;
}

void read_row(ViewRun& run, const char* name, const double* values) {
  read_string(name, false, "row name");
  double sum = 0;
  for (size_t i = 0; i < run.columns; ++i) sum += values[i];
  g_sink = static_cast<uint64_t>(sum != sum);
}

void table_row(void* context, const char* name, const double* values, uint64_t stack_id) {
  ViewRun& run = *scope(context).run;
  if (!run.table_begun) return;  // er_print drops it
  read_row(run, name, values);
  g_sink = stack_id;
}

void table_row_frames(void* context, const char* name, const double* values, const lumen_frame_name* frames,
                      size_t frame_count) {
  ViewRun& run = *scope(context).run;
  if (!run.table_begun) return;
  read_row(run, name, values);
  for (size_t i = 0; i < frame_count; ++i)
    g_sink = read_string(frames[i].function, false, "frame function") +
             read_string(frames[i].load_object, false, "frame load object");
}

int selected(void* context, uint64_t, uint32_t thread_id) { return thread_id != scope(context).run->unselected; }

uint32_t map_epoch(void*, uint64_t time_ns) { return static_cast<uint32_t>(time_ns >> 30) & 3; }

}  // namespace

PayloadCopy::PayloadCopy(const InputRecord& record)
    : buffer_(static_cast<unsigned char*>(std::malloc(size_t{record.payload_bytes} + 4))) {
  if (buffer_ == nullptr) std::abort();
  std::memcpy(buffer_ + 4, record.payload, record.payload_bytes);
}

PayloadCopy::~PayloadCopy() { std::free(buffer_); }

void run_checked_view(const lumen_view_def& view, const DecoderInput& input, const std::vector<size_t>& part_starts) {
  ViewRun run{&input, &part_starts, static_cast<uint32_t>(std::strtoul(input.fact("unselected", "0"), nullptr, 10))};
  Scope top{&run, 0, input.records.size()};
  const lumen_view_host host{.size = sizeof(lumen_view_host),
                             .context = &top,
                             .for_each_record = for_each_record,
                             .for_each_record_in_parts = for_each_record_in_parts,
                             .record_failed = record_failed,
                             .selected = selected,
                             .map_epoch = map_epoch,
                             .stack_frames_at = stack_frames_at,
                             .data_symbol = data_symbol,
                             .summary = summary,
                             .table_begin = table_begin,
                             .table_row = table_row,
                             .table_row_frames = table_row_frames,
                             .row_limit = std::strtoul(input.fact("limit", "0"), nullptr, 10)};
  char error[512] = "";
  if (view.run(&host, error, sizeof error) != 0 && std::memchr(error, 0, sizeof error) == nullptr) {
    std::fprintf(stderr, "decoder fuzzer: view %s left its error unterminated\n", view.command);
    std::abort();
  }
}

}  // namespace lumen::fuzz
