#include "task_files.h"

namespace lumen::states {

namespace {

// Reads TID/NAME into `text`, terminated; stat is the longest (a few
// hundred bytes: its command name is at most 16).
template <size_t N>
bool read_text(const lumen_runtime& runtime, uint32_t tid, const char* name, char (&text)[N]) {
  const long n = runtime.read_task_file(tid, name, text, N - 1);
  if (n <= 0) return false;
  text[n] = '\0';
  return true;
}

}  // namespace

bool read_task_schedstat(const lumen_runtime& runtime, uint32_t tid, SchedStat* out) {
  char text[96];
  return read_text(runtime, tid, "schedstat", text) && parse_schedstat(text, out);
}

bool read_task_state(const lumen_runtime& runtime, uint32_t tid, char* state) {
  char text[1024];
  return read_text(runtime, tid, "stat", text) && parse_state_letter(text, state);
}

bool read_task_syscall(const lumen_runtime& runtime, uint32_t tid, Whereabouts* out) {
  char text[256];
  return read_text(runtime, tid, "syscall", text) && parse_syscall(text, out);
}

}  // namespace lumen::states
