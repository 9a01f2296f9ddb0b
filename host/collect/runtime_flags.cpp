#include "runtime_flags.h"

#include <csignal>
#include <cstring>
#include <string_view>

#include "command_line.h"

namespace lumen::collect {

namespace {

// A non-negative decimal number of seconds ("1", "0.25"), with an optional
// unit suffix from `units` (each scales to seconds); -1 when it is not one.
double seconds_in(std::string text, bool allow_minutes) {
  double scale = 1;
  if (!text.empty() && text.back() == 's') {
    text.pop_back();
  } else if (allow_minutes && !text.empty() && text.back() == 'm') {
    text.pop_back();
    scale = 60;
  }
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string::npos ||
      text.find('.') != text.rfind('.') || text == ".")
    return -1;
  return std::stod(text) * scale;
}

long long to_ns(double seconds) { return static_cast<long long>(seconds * 1e9 + 0.5); }

}  // namespace

long long parse_sample_period(const std::string& text) {
  if (text == "on") return 1'000'000'000;
  if (text == "off") return 0;
  const double seconds = seconds_in(text, false);
  if (seconds < 0) throw UsageError("-S takes on, off or a period in seconds, not '" + text + "'");
  if (seconds < 0.001 && seconds != 0)
    throw UsageError("-S " + text + ": a sample period under 1 ms would cost more than it shows");
  return to_ns(seconds);
}

int parse_signal(const std::string& flag, const std::string& text) {
  int signal = 0;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 4) {
    signal = std::stoi(text);
  } else {
    const std::string name = text.rfind("SIG", 0) == 0 ? text.substr(3) : text;
    for (int s = 1; s < NSIG && signal == 0; ++s)
      if (const char* abbrev = sigabbrev_np(s); abbrev != nullptr && name == abbrev) signal = s;
    if (signal == 0 && name.rfind("RTMIN+", 0) == 0 && name.size() > 6 &&
        name.find_first_not_of("0123456789", 6) == std::string::npos)
      signal = SIGRTMIN + std::stoi(name.substr(6));
  }
  if (signal <= 0 || signal >= NSIG)
    throw UsageError(flag + ": '" + text + "' is not a signal (a name such as SIGUSR1 or USR1, or a number)");
  if (signal == SIGKILL || signal == SIGSTOP)
    throw UsageError(flag + ": " + signal_name(signal) + " cannot be caught");
  if (signal == SIGPROF)
    throw UsageError(flag + ": SIGPROF is the collector's own signal; choose another, such as SIGUSR1");
  // The program cannot spare these: the kernel raises them for its faults
  // (a sample there would hide the crash), abort() raises SIGABRT, and the
  // kernel sends SIGCHLD and SIGCONT for reasons of its own.
  for (const int spared : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT, SIGCHLD, SIGCONT})
    if (signal == spared)
      throw UsageError(flag + ": " + signal_name(signal) +
                       " is the program's own (the kernel or the C library sends it); choose another, such as SIGUSR1");
  if (signal > SIGSYS && signal < SIGRTMIN)
    throw UsageError(flag + ": signal " + std::to_string(signal) + " is the C library's own; choose another, such as SIGUSR1");
  return signal;
}

void parse_pause_signal(const std::string& text, RuntimeSettings& settings) {
  const auto comma = text.find(',');
  const std::string suffix = comma == std::string::npos ? "" : text.substr(comma + 1);
  if (comma != std::string::npos && suffix != "r")
    throw UsageError("-y takes SIGNAL or SIGNAL,r (start resumed), not '" + text + "'");
  settings.pause_signal = parse_signal("-y", text.substr(0, comma));
  settings.start_paused = comma == std::string::npos;
}

void parse_window(const std::string& text, RuntimeSettings& settings) {
  const auto dash = text.find('-');
  const double first = seconds_in(text.substr(0, dash), true);
  const double second = dash == std::string::npos ? 0 : seconds_in(text.substr(dash + 1), true);
  if (first < 0 || second < 0)
    throw UsageError("-t takes END or START-END in seconds (suffix s) or minutes (suffix m), not '" + text + "'");
  if (dash == std::string::npos) {
    if (first == 0) throw UsageError("-t " + text + ": collection would end before it starts");
    settings.window_start_ns = 0;
    settings.window_end_ns = to_ns(first);
    return;
  }
  if (second <= first) throw UsageError("-t " + text + ": the end of the window must come after its start");
  settings.window_start_ns = to_ns(first);
  settings.window_end_ns = to_ns(second);
}

long long parse_size_limit(const std::string& text) {
  if (text == "unlimited" || text == "none") return 0;
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9)
    throw UsageError("-L takes a size in megabytes or 'unlimited', not '" + text + "'");
  const long long megabytes = std::stoll(text);
  if (megabytes == 0) throw UsageError("-L 0: nothing could be recorded; use -L unlimited for no limit");
  return megabytes * 1024 * 1024;
}

ArchiveMode parse_archive_mode(const std::string& text) {
  if (text == "on") return ArchiveMode::on;
  if (text == "off") return ArchiveMode::off;
  if (text == "copy") return ArchiveMode::copy;
  throw UsageError("-A takes on, off or copy, not '" + text + "'");
}

std::string signal_name(int signal) {
  if (signal >= SIGRTMIN && signal <= SIGRTMAX) return "SIGRTMIN+" + std::to_string(signal - SIGRTMIN);
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : std::to_string(signal);
}

}  // namespace lumen::collect
