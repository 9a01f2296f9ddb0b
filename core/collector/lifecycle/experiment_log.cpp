#include "lifecycle/experiment_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "recording/file_keeper.h"
#include "recording/raw_syscalls.h"
#include "recording/runtime_fds.h"
#include "threads/own_descriptor_table.h"

namespace lumen::collector {

namespace {

int g_log_fd = -1;
FileIdentity g_log_identity;
char g_log_path[4096];

int open_log() {
  const int fd = adopt_runtime_fd(raw_open(g_log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  g_log_identity = identity_of(fd);
  return fd;
}

// [signal-safe] The log's descriptor, opened again when the program closed
// it behind the runtime's back (a raw close_range system call).
int log_fd() {
  if (g_log_fd < 0 || still_open_on(g_log_fd, g_log_identity)) return g_log_fd;
  if (has_own_descriptor_table()) return -1;  // opened again by a thread of the program's table
  g_log_fd = open_log();
  return g_log_fd;
}

// Where the files are (recording/file_keeper.h). A lost log line must not
// disturb the target; nothing to do on failure.
void write_line(const char* line, size_t bytes) {
  auto write = [&] {
    if (const int fd = log_fd(); fd >= 0) [[maybe_unused]] ssize_t written = raw_write(fd, line, bytes);
  };
  with_runtime_files(write);
}

}  // namespace

bool experiment_log_open(const std::string& directory) {
  std::snprintf(g_log_path, sizeof g_log_path, "%s/%s", directory.c_str(), metadata::kLogFile);
  if (g_log_fd >= 0) close_runtime_fd(g_log_fd);
  int fd = -1;
  auto open = [&] { fd = open_log(); };
  with_runtime_files(open);
  g_log_fd = fd;
  return g_log_fd >= 0;
}

void experiment_log_close() {
  g_log_path[0] = '\0';
  if (g_log_fd >= 0) close_runtime_fd(g_log_fd);
  g_log_fd = -1;
}

void experiment_log_event(const char* event, const std::string& fields) {
  const std::string line = "- {event: " + std::string(event) + (fields.empty() ? "" : ", " + fields) + "}\n";
  write_line(line.data(), line.size());
}

void experiment_log_short_event(const char* event, const char* fields) {
  char line[512];
  const int n = std::snprintf(line, sizeof line, "- {event: %s%s%s}\n", event, *fields != '\0' ? ", " : "", fields);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof line) return;
  write_line(line, static_cast<size_t>(n));
}

void experiment_log_write_prepared(const char* line, size_t bytes) { write_line(line, bytes); }

}  // namespace lumen::collector
