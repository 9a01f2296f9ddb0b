// What the analysis half's files share: the metrics in declaration order,
// what one call contributes to each, and the views.
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstddef>
#include <cstdint>

#include "../io_record.h"

namespace lumen::io {

// The metrics' indexes in kMetrics (io_analysis.cpp) and in event values:
// gprofng's keywords, the times first (what the default metric list shows).
enum Metric : size_t {
  kReadTime, kWriteTime, kOtherTime, kErrorTime,
  kReadBytes, kReadCount, kWriteBytes, kWriteCount, kOtherCount, kErrorCount,
  kMetricCount
};

struct CallTotals {
  int64_t values[kMetricCount];
};

// A failed call counts as an error (its count and time), never as a read,
// write or other call.
CallTotals totals_of(const IoCall& call);

// One column per metric, keyed by its keyword, for the views.
extern const lumen_view_column kColumns[kMetricCount];

extern const lumen_view_def kViews[];
extern const size_t kViewCount;

// -iostat (io_statistics.cpp).
int run_statistics_view(const lumen_view_host* host, char* error, size_t error_size);

}  // namespace lumen::io
