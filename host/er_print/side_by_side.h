// -compare on|delta|ratio in any view: with two or more experiments open,
// the view is built for each experiment alone and the tables are merged
// side by side (compare_tables.h); otherwise it is the session's view.
#pragma once

#include <stdexcept>
#include <vector>

#include "code_profile.h"
#include "compare_tables.h"
#include "session.h"

namespace lumen::er_print {

inline bool comparing(Session& s) {
  return s.compare() != analysis::CompareMode::Off && s.experiments().size() > 1;
}

// `build(profile)` makes the view of a stack profile. An experiment whose
// view is refused (a function it does not have) shows no rows; the first
// experiment's refusal is the command's.
template <typename Build>
analysis::ViewTable side_by_side(Session& s, Build build) {
  if (!comparing(s)) return build(s.profile());
  std::vector<analysis::ViewTable> tables;
  for (const analysis::StackProfile* profile : s.profiles_of_each()) {
    try {
      tables.push_back(build(*profile));
    } catch (const std::runtime_error&) {
      if (tables.empty()) throw;
      tables.push_back(tables.front());
      tables.back().rows.clear();
    }
  }
  return analysis::compare_tables(tables, s.compare());
}

// The same for views of code (lines, instructions, source, disassembly):
// `build(code, profile)`.
template <typename Build>
analysis::ViewTable code_side_by_side(Session& s, Build build) {
  if (!comparing(s)) return build(s.code_profile(), s.profile());
  return side_by_side(s, [&](const analysis::StackProfile& profile) {
    const analysis::CodeProfile code(profile, s.experiments(), s.structure());
    return build(code, profile);
  });
}

}  // namespace lumen::er_print
