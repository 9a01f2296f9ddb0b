// What the OpenMP plugin's integration tests read of er_print's rows.
#pragma once

#include <map>
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

}  // namespace lumen::test
