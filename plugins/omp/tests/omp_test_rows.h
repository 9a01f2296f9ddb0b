// What the OpenMP plugin's integration tests read of er_print's rows.
#pragma once

#include <map>
#include <ostream>
#include <string>

#include "lumen_commands.h"

namespace lumen::test {

inline constexpr double kClockInterval = 0.01;  // -p on

// A row's metric, 0 for a function er_print did not list.
inline double value(const std::map<std::string, nlohmann::json>& rows, const std::string& function,
                    const std::string& metric) {
  return rows.count(function) ? rows.at(function).at(metric).get<double>() : 0.0;
}

inline bool any_row_contains(const std::map<std::string, nlohmann::json>& rows, const std::string& part) {
  for (const auto& [name, row] : rows)
    if (name.find(part) != std::string::npos) return true;
  return false;
}

// A test target as one OpenMP runtime's compiler built it.
struct OmpBuild {
  const char* name;  // the test's suffix: libgomp, libomp
  const char* target;
};

inline void PrintTo(const OmpBuild& build, std::ostream* out) { *out << build.name; }

}  // namespace lumen::test
