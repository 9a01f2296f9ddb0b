#include "experiment_log.h"

#include <fcntl.h>
#include <unistd.h>

#include "runtime_fds.h"

namespace lumen::collector {

namespace {
int g_log_fd = -1;
}

bool experiment_log_open(const std::string& directory) {
  const std::string path = directory + "/" + metadata::kLogFile;
  if (g_log_fd >= 0) close_runtime_fd(g_log_fd);
  g_log_fd = adopt_runtime_fd(open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  return g_log_fd >= 0;
}

void experiment_log_event(const char* event, const std::string& fields) {
  if (g_log_fd < 0) return;
  const std::string line = "- {event: " + std::string(event) + (fields.empty() ? "" : ", " + fields) + "}\n";
  // A lost log line must not disturb the target; nothing to do on failure.
  [[maybe_unused]] ssize_t written = write(g_log_fd, line.data(), line.size());
}

void experiment_log_write_prepared(const char* line, size_t bytes) {
  if (g_log_fd < 0) return;
  [[maybe_unused]] ssize_t written = write(g_log_fd, line, bytes);
}

}  // namespace lumen::collector
