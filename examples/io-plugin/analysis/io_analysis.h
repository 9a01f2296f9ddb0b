// What the analysis half's files share: the metrics in declaration order,
// what one call contributes to each, and the views.
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstddef>
#include <cstdint>

#include "../io_record.h"

namespace io_plugin {

// The metrics' indexes in kMetrics (io_analysis.cpp) and in event values.
enum Metric : size_t { kReadBytes, kWriteBytes, kReadCount, kWriteCount, kOtherCount, kErrorCount, kTime, kMetricCount };

struct CallTotals {
  int64_t values[kMetricCount];
};

// A failed call counts as an error (and its time), never as a read or write.
CallTotals totals_of(const IoCall& call);

extern const lumen_view_def kViews[];
extern const size_t kViewCount;

}  // namespace io_plugin
