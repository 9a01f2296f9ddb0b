// PMU events in the kernel's sysfs notation, "PMU/EVENT/" (as perf writes
// them: msr/tsc/, power/energy-pkg/, uncore_imc/cas_count_read/): the PMU's
// perf type from /sys/bus/event_source/devices/PMU/type, and the event's
// terms ("event=0x3c,umask=0x01") placed into config/config1/config2 by the
// PMU's format files ("config:0-7,32-35"). Plain string work, no perf
// headers, so the unit tests reach it. Not signal-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lumen::hwc {

inline constexpr const char* kSysfsPmuRoot = "/sys/bus/event_source/devices";

// Where one format term's value goes: which config word, and which bits
// of it (lowest first; a value's bits fill them in order).
struct FormatField {
  int word = 0;  // 0: config, 1: config1, 2: config2
  uint8_t bits[64] = {};
  int bit_count = 0;
};

struct SysfsEvent {
  uint32_t type = 0;
  uint64_t config[3] = {};  // config, config1, config2
};

// "config1:0-7,32-35" -> field; "" or what is wrong.
std::string parse_format(const std::string& text, FormatField* field);

// Places the terms of an event file ("event=0x3c,umask=0x01,edge") into
// `config` through `formats` (term name -> field). A term without a value
// is 1. Returns "" or what is wrong (an unknown term, a value to be given
// by the user such as "umask=?", a value wider than its field).
std::string apply_terms(const std::string& terms, const std::map<std::string, FormatField>& formats,
                        uint64_t config[3]);

// "0-3,8,10-11" (a cpumask or online file) -> the CPUs in order; "" or what
// is wrong.
std::string parse_cpu_list(const std::string& text, std::vector<int>* cpus);

// The CPUs a CPU-wide event of PMU is opened on: its cpumask (an uncore PMU
// names one CPU per package), else every online CPU.
std::string pmu_cpus(const std::string& root, const std::string& pmu, std::vector<int>* cpus);

// Reads ROOT/PMU/{type,events/EVENT,format/*} and encodes the event.
std::string read_sysfs_event(const std::string& root, const std::string& pmu, const std::string& event,
                             SysfsEvent* out);

}  // namespace lumen::hwc
