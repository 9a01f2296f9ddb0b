// er_print -source FUNC|FILE and -disasm FUNC|FILE: a source file (or a
// function's instructions, with its source lines interleaved) with the
// metrics of each line or instruction. Lines whose sort metric (exclusive
// unless the sort says inclusive) reaches `threshold_percent` of the hottest
// line's are marked "##" (-sthresh; Oracle's default is 75). A source file
// whose real path lies outside the directories the experiment was recorded
// from and those the user gave (SourcePaths::roots) is named by that real
// path with a notice saying so, and every row of the view then has the
// field "outside" ("yes" on that file's heading).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "code_profile.h"
#include "source_paths.h"
#include "structure_views.h"
#include "view_table.h"

namespace lumen::analysis {

struct AnnotationRequest {
  std::string target;  // a function name or a source file
  size_t which = 0;    // of several functions of that name, only this one (1-based); 0: all
  double threshold_percent = 75.0;
  const SourcePaths* paths = nullptr;
  std::vector<std::filesystem::path> experiment_dirs;
};

// The roots source files are placed against: the experiments' directories,
// the load objects' as recorded, and those the user gave.
std::vector<std::filesystem::path> source_roots(const ProgramStructure& structure, const AnnotationRequest& annotation);

// "Source file: PATH", with the notice when it was found outside `roots`.
std::string source_file_heading(const FoundSource& found, const std::vector<std::filesystem::path>& roots);

// Gives every row the field "outside", "yes" on the rows at `outside`; no
// field at all when `outside` is empty.
void mark_outside_rows(ViewTable& table, const std::vector<size_t>& outside);

// Throw std::runtime_error when `target` names neither a function with data
// nor a source file of one.
ViewTable annotated_source(const CodeProfile& code, const StackProfile& profile, const ProgramStructure& structure,
                           const MetricRegistry& registry, const ViewRequest& request,
                           const AnnotationRequest& annotation);

ViewTable annotated_disassembly(const CodeProfile& code, const StackProfile& profile, const ProgramStructure& structure,
                                const MetricRegistry& registry, const ViewRequest& request,
                                const AnnotationRequest& annotation);

}  // namespace lumen::analysis
