// collector.log: what the runtime has to say about this process, one YAML
// flow mapping per line, appended with single writes so that a log cut short
// by a crash is still valid YAML up to its last whole line.
#pragma once

#include <cstddef>
#include <string>

#include "experiment_metadata.h"
#include "yaml_text.h"

namespace lumen::collector {

// Not signal-safe (all of this file).
bool experiment_log_open(const std::string& directory);

// Closes the log for good (a detach): later events are not written.
void experiment_log_close();

// Appends "- {event: EVENT, " + fields + "}" as one line; `event` is one
// of metadata::log_event, `fields` already YAML.
void experiment_log_event(const char* event, const std::string& fields = "");

// The same for a line of at most 512 bytes, formatted on the stack: the
// collector's own threads log without allocating (a thread's first malloc
// gives it an arena of its own, 64 MiB of the program's address space).
void experiment_log_short_event(const char* event, const char* fields);

// [signal-safe] Appends a line built beforehand ("- {...}\n") with one write.
void experiment_log_write_prepared(const char* line, size_t bytes);

using metadata::yaml_quoted;

}  // namespace lumen::collector
