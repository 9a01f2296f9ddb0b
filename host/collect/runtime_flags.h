// The values of the flags for what collect asks of the runtime besides
// plugins (metadata::RuntimeSettings): sample points (-S, -l), pause and
// resume (-y), the collection window (-t), the size limit (-L) and archiving
// (-A). Each flag's text is checked here, so a bad value is refused before
// the target starts.
#pragma once

#include <string>

#include "collection_plan.h"

namespace lumen::collect {

using metadata::ArchiveMode;
using metadata::RuntimeSettings;
using metadata::archive_mode_name;

// Each throws UsageError naming the flag and the value it cannot use.
long long parse_sample_period(const std::string& text);  // on|off|SECONDS
int parse_signal(const std::string& flag, const std::string& text);  // SIGUSR1, USR1, 10
void parse_pause_signal(const std::string& text, RuntimeSettings& settings);  // SIGNAL[,r]
void parse_window(const std::string& text, RuntimeSettings& settings);  // START[-END], s or m suffix
long long parse_size_limit(const std::string& text);  // MB, unlimited|none
ArchiveMode parse_archive_mode(const std::string& text);  // on|off|copy

std::string signal_name(int signal);  // "SIGUSR1"

}  // namespace lumen::collect
