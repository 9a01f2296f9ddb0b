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

// -omp_preg's and -omp_task's rows by the function holding each construct:
// a row named "f, line N in "file"" is f's (a function holding several
// constructs keeps the first).
inline std::map<std::string, nlohmann::json> rows_by_construct_function(const nlohmann::json& table) {
  std::map<std::string, nlohmann::json> rows;
  for (auto& [name, row] : rows_by_name(table)) rows.emplace(name.substr(0, name.find(", line ")), row);
  return rows;
}

// A test target as one OpenMP runtime's compiler built it.
struct OmpBuild {
  const char* name;  // the test's suffix: libgomp, libomp
  const char* target;
};

inline void PrintTo(const OmpBuild& build, std::ostream* out) { *out << build.name; }

}  // namespace lumen::test
