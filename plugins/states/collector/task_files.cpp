#include "task_files.h"

namespace lumen::states {

namespace {

// The text of a file a batch read into `buffer` (room for N - 1 bytes and
// the terminator the batch left room for), or nullptr.
template <size_t N>
const char* text_of(long bytes, const char (&buffer)[N]) {
  if (bytes <= 0 || static_cast<size_t>(bytes) >= N) return nullptr;
  return buffer;
}

template <size_t N>
void ask(lumen_task_file* batch, size_t* asked, uint32_t tid, const char* name, char (&buffer)[N]) {
  batch[(*asked)++] = lumen_task_file{tid, name, buffer, N - 1, -1};
}

// Terminates a text read into `buffer`, keeping its byte count.
template <size_t N>
long terminated(const lumen_task_file& file, char (&buffer)[N]) {
  if (file.bytes > 0 && static_cast<size_t>(file.bytes) < N) buffer[file.bytes] = '\0';
  return file.bytes;
}

}  // namespace

bool TaskFiles::counters(SchedStat* out) const {
  const char* text = text_of(schedstat_bytes, schedstat);
  return text != nullptr && parse_schedstat(text, out);
}

bool TaskFiles::state(char* out) const {
  const char* text = text_of(stat_bytes, stat);
  return text != nullptr && parse_state_letter(text, out);
}

bool TaskFiles::whereabouts(Whereabouts* out) const {
  const char* text = text_of(syscall_bytes, syscall);
  return text != nullptr && parse_syscall(text, out);
}

void read_task_files(const lumen_runtime& runtime, const uint32_t* tids, TaskFiles* files, size_t count) {
  lumen_task_file batch[kBatchFiles * 3];
  size_t asked = 0;
  for (size_t i = 0; i < count && i < kBatchFiles; ++i) {
    TaskFiles& f = files[i];
    f.schedstat_bytes = f.stat_bytes = f.syscall_bytes = -1;
    if (f.wants_counters) ask(batch, &asked, tids[i], "schedstat", f.schedstat);
    if (f.wants_whereabouts) {
      ask(batch, &asked, tids[i], "stat", f.stat);
      ask(batch, &asked, tids[i], "syscall", f.syscall);
    }
  }
  if (asked == 0) return;
  runtime.threads->read_task_files(batch, asked);
  size_t next = 0;
  for (size_t i = 0; i < count && i < kBatchFiles; ++i) {
    TaskFiles& f = files[i];
    if (f.wants_counters) f.schedstat_bytes = terminated(batch[next++], f.schedstat);
    if (f.wants_whereabouts) {
      f.stat_bytes = terminated(batch[next++], f.stat);
      f.syscall_bytes = terminated(batch[next++], f.syscall);
    }
  }
}

bool read_task_schedstat(const lumen_runtime& runtime, uint32_t tid, SchedStat* out) {
  TaskFiles files;
  files.wants_counters = true;
  read_task_files(runtime, &tid, &files, 1);
  return files.counters(out);
}

}  // namespace lumen::states
