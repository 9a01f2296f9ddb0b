// er_print views of the heap plugin (lumen_view_def::run functions).
#pragma once

#include <lumen/analysis_plugin.h>

namespace lumen::heap {

// -leaks: allocations never freed, one row per distinct call stack.
int run_leaks_view(const lumen_view_host* host, char* error, size_t error_size);
// -allocs: every allocation, one row per distinct call stack.
int run_allocs_view(const lumen_view_host* host, char* error, size_t error_size);
// -heap (-heapstat): totals, size histogram, allocators, and the peak of
// memory in use with the stacks that held the most of it then.
int run_heap_view(const lumen_view_host* host, char* error, size_t error_size);
// -heap_in_use: bytes in use over time, in bins (heap_in_use.cpp).
int run_heap_in_use_view(const lumen_view_host* host, char* error, size_t error_size);

}  // namespace lumen::heap
