// A thread's files under /proc/self/task/TID, read through the runtime
// (lumen_thread_service.read_task_files): it opens them on a thread with a
// descriptor table of its own, so a reading never takes a descriptor number
// from the program's range, not even for a moment. Each request is a round
// trip to that thread, so the sampler asks for every thread's files of a
// tick in one request (a TaskFiles per thread, gathered in a batch).
#pragma once

#include <lumen/collector_plugin.h>

#include <cstddef>
#include <cstdint>

#include "proc_reader.h"

namespace lumen::states {

// What one reading of a thread asks for, and what it got.
struct TaskFiles {
  bool wants_counters = false;     // schedstat
  bool wants_whereabouts = false;  // stat and syscall
  // Filled by the batch: the bytes read (-1: not read), and the texts.
  long schedstat_bytes = -1, stat_bytes = -1, syscall_bytes = -1;
  char schedstat[96];
  char stat[1024];  // its command name is at most 16 bytes: a few hundred
  char syscall[256];

  // Each parses what the batch read; false when the file was not read.
  bool counters(SchedStat* out) const;
  bool state(char* out) const;
  bool whereabouts(Whereabouts* out) const;
};

// Reads the files each of `count` threads wants (tids[i]'s into files[i])
// in one request of the runtime's reading thread. At most kBatchFiles
// threads: a tick reads kBatchThreads of the program's, and the sampling
// thread's and the reading thread's own schedstat.
inline constexpr size_t kBatchThreads = 64;
inline constexpr size_t kBatchFiles = kBatchThreads + 2;
void read_task_files(const lumen_runtime& runtime, const uint32_t* tids, TaskFiles* files, size_t count);

// Reads and parses one file of thread `tid` on its own; false when it cannot.
bool read_task_schedstat(const lumen_runtime& runtime, uint32_t tid, SchedStat* out);

}  // namespace lumen::states
