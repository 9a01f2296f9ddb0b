// What collect asks of the runtime besides plugins: sample points (-S, -l),
// pause and resume (-y), the collection window (-t), the size limit (-L) and
// archiving (-A). Each flag's text is checked here, so a bad value is refused
// before the target starts.
#pragma once

#include <string>

namespace lumen::collect {

enum class ArchiveMode { off, on, copy };

struct RuntimeSettings {
  long long sample_period_ns = 1'000'000'000;  // -S; 0: no periodic samples
  int sample_signal = 0;                       // -l; 0: none
  int pause_signal = 0;                        // -y; 0: none
  bool start_paused = false;                   // -y SIGNAL without ",r"
  long long window_start_ns = 0;               // -t START[-END]
  long long window_end_ns = 0;                 // 0: until the end
  long long size_limit_bytes = 0;              // -L; 0: unlimited
  ArchiveMode archive = ArchiveMode::on;       // -A
};

// Each throws UsageError naming the flag and the value it cannot use.
long long parse_sample_period(const std::string& text);  // on|off|SECONDS
int parse_signal(const std::string& flag, const std::string& text);  // SIGUSR1, USR1, 10
void parse_pause_signal(const std::string& text, RuntimeSettings& settings);  // SIGNAL[,r]
void parse_window(const std::string& text, RuntimeSettings& settings);  // START[-END], s or m suffix
long long parse_size_limit(const std::string& text);  // MB, unlimited|none
ArchiveMode parse_archive_mode(const std::string& text);  // on|off|copy

std::string archive_mode_name(ArchiveMode mode);
std::string signal_name(int signal);  // "SIGUSR1"

}  // namespace lumen::collect
