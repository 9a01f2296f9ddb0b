// Heap tracing on the host: the metrics, the decoder and the views.
//
// Every allocation becomes an event (heapalloccnt 1, heapallocbytes its size)
// as its record is decoded. Leaks need the whole file: the decoder keeps the
// latest event at each address (heap_latest.h), and at the end emits one
// event per allocation never freed (heapleakcnt 1, heapleakbytes its size)
// with the allocation's stack, time and thread, in time order. The file may
// be decoded in parts on several threads: the parts' latest events are
// merged in file order before the end (decoder_merge). For a reader
// that draws timelines (lumen_emit_level), it also keeps the operations and
// replays them in time order, with the pairing rule, for the bytes in use
// after each change; other readers pay nothing for it.
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <iterator>
#include <new>

#include "heap_latest.h"
#include "heap_timeline.h"
#include "heap_views.h"

namespace lumen::heap {

namespace {

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;

// Event value slots follow this order. The default metric list shows them
// inclusive only, as gprofng does: the exclusive figures are those of the
// allocation functions themselves, the traced calls at each stack's leaf.
enum Metric { kAllocCount = 0, kAllocBytes = 1, kLeakCount = 2, kLeakBytes = 3 };
const lumen_metric_def kMetrics[] = {
    {"heapalloccnt", "Allocations", LUMEN_UNIT_COUNT, kAllFlavors,
     "Calls to the memory allocation functions that succeeded (malloc, calloc, realloc, memalign, posix_memalign, "
     "aligned_alloc, valloc, pvalloc, mmap, mremap)",
     LUMEN_FLAVOR_INCLUSIVE},
    {"heapallocbytes", "Bytes Allocated", LUMEN_UNIT_BYTES, kAllFlavors,
     "Bytes asked for in each allocation (for realloc, its new size)", LUMEN_FLAVOR_INCLUSIVE},
    {"heapleakcnt", "Leaks", LUMEN_UNIT_COUNT, kAllFlavors,
     "Allocations with no deallocation of their address before collection ended", LUMEN_FLAVOR_INCLUSIVE},
    {"heapleakbytes", "Bytes Leaked", LUMEN_UNIT_BYTES, kAllFlavors, "Bytes of the allocations never deallocated",
     LUMEN_FLAVOR_INCLUSIVE},
};

void emit(const lumen_event_sink* sink, const HeapOp& op, Metric count, Metric bytes) {
  int64_t values[std::size(kMetrics)] = {};
  values[count] = 1;
  values[bytes] = lumen_value_of(op.size);
  // The allocation function is its event's leaf (its stack starts at its caller).
  const auto allocator = static_cast<size_t>(op.allocator);
  const uint64_t stack = allocator < std::size(kAllocatorNames)
                             ? lumen_traced_call_stack(sink, op.stack_id, kAllocatorNames[allocator])
                             : op.stack_id;
  lumen_emit_event(sink, op.time_ns, stack, op.thread_id, -1, values);
}

// The level heap tracing draws on timelines.
constexpr const char* kInUseLevel = "Heap bytes in use";

// For timelines: the bytes in use after each operation that changed them,
// as a level of the process (the -heap view's peak is their highest value).
struct InUseLevel {
  const lumen_event_sink* sink;
  const std::vector<HeapOp>* ops;
  int64_t in_use = 0;
  void allocated(size_t i) { change(i, lumen_value_of((*ops)[i].size)); }
  void released(size_t allocation, size_t by) { change(by, -lumen_value_of((*ops)[allocation].size)); }
  void unmatched(size_t) {}
  void change(size_t at, int64_t bytes) {
    in_use += bytes;
    lumen_emit_level(sink, kInUseLevel, LUMEN_UNIT_BYTES, (*ops)[at].time_ns, in_use);
  }
};

// Emits each allocation at once and keeps the latest event per address
// (and, for a timeline, every operation).
class Decoder final : public HeapRecordReader {
 public:
  void start(const HeapStart&) override {}
  void op(const HeapOp& op) override {
    if (op.allocation) emit(sink_, op, kAllocCount, kAllocBytes);
    latest_.add(op);
    if (sink_->level != nullptr) history_.add(op);
  }
  void set_sink(const lumen_event_sink* sink) { sink_ = sink; }
  const LatestByAddress& latest() const { return latest_; }
  void merge(const Decoder& later) { latest_.merge(later.latest_); }
  HeapTimeline& history() { return history_; }

 private:
  const lumen_event_sink* sink_ = nullptr;
  LatestByAddress latest_;
  HeapTimeline history_;
};

void* decoder_begin(void*) { return new (std::nothrow) Decoder; }

int decode(void* state, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (state == nullptr) {
    std::snprintf(error, error_size, "out of memory for the heap decoder");
    return 1;
  }
  auto* decoder = static_cast<Decoder*>(state);
  decoder->set_sink(sink);
  std::string problem;
  if (!decode_heap_record(kind, payload, bytes, *decoder, problem)) {
    std::snprintf(error, error_size, "%s", problem.c_str());
    return 1;
  }
  return 0;
}

// The parts of a file are decoded apart (each emits its allocations) and
// their latest events per address merged in file order: the leaks are the
// whole file's.
int decoder_merge(void* state, void* later, char* error, size_t error_size) {
  if (state == nullptr || later == nullptr) {
    std::snprintf(error, error_size, "out of memory for the heap decoder");
    return 1;
  }
  static_cast<Decoder*>(state)->merge(*static_cast<const Decoder*>(later));
  return 0;
}

int decoder_end(void* state, const lumen_event_sink* sink, char*, size_t) {
  auto* decoder = static_cast<Decoder*>(state);
  if (decoder != nullptr && sink != nullptr) {
    for (const HeapOp& op : decoder->latest().live_in_time_order()) emit(sink, op, kLeakCount, kLeakBytes);
    if (sink->level != nullptr) {
      HeapTimeline& history = decoder->history();
      history.finish();
      history.replay(InUseLevel{sink, &history.ops()});
    }
  }
  delete decoder;
  return 0;
}

const lumen_view_def kViews[] = {
    {"leaks", "allocations never freed, one row per call stack, most bytes first", run_leaks_view},
    {"allocs", "allocations, one row per call stack, most bytes first", run_allocs_view},
    {"heap", "heap totals, allocation sizes, and the peak of memory in use with the stacks holding it",
     run_heap_view},
    {"heapstat", "the same as heap", run_heap_view},
    {"heap_in_use", "bytes in use over time, in bins: the highest in each and the value at its end", run_heap_in_use_view},
};

const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "heap",
    .version = "1.0",
    .data_file = kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .decoder_begin = decoder_begin,
    .decode = decode,
    .decoder_end = decoder_end,
    .decodes_in_parts = 1,
    .decoder_merge = decoder_merge,
    .views = kViews,
    .view_count = std::size(kViews),
};

}  // namespace

}  // namespace lumen::heap

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() {
  return &lumen::heap::kPlugin;
}
