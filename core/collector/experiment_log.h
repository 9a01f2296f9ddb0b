// collector.log: what the runtime has to say about this process, one YAML
// flow mapping per line, appended with single writes so that a log cut short
// by a crash is still valid YAML up to its last whole line.
#pragma once

#include <cstddef>
#include <string>

namespace lumen::collector {

// Not signal-safe (all of this file).
bool experiment_log_open(const std::string& directory);

// Appends "- {" + fields + "}" as one line. `fields` is already YAML.
void experiment_log_write(const std::string& fields);

// [signal-safe] Appends a line built beforehand ("- {...}\n") with one write.
void experiment_log_write_prepared(const char* line, size_t bytes);

// A double-quoted YAML scalar.
std::string yaml_quoted(const std::string& text);

}  // namespace lumen::collector
