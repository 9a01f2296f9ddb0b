// er_print -cprepend/-cappend/-crmfirst/-crmlast: callers-callees around a
// stack fragment (functions in call order, outermost first). Events whose
// stack holds the fragment as consecutive frames count once, at its
// innermost occurrence (nearest the leaf, as callers-callees attributes
// recursion; the callers and callees of outer ones are listed with zero):
//   Callers         the frame that called the fragment's first function;
//   Stack Fragment  its functions: each shows what passed through the
//                   fragment, but the last, which shows what stayed there
//                   (it was the leaf);
//   Callees         the frame the fragment's last function called.
// So Callers add up to the fragment's value (less stacks where the fragment
// is the root) and the last fragment row plus the Callees add up to it too.
#pragma once

#include <string>
#include <vector>

#include "document.h"
#include "stack_profile.h"
#include "structure_views.h"

namespace lumen::analysis {

// A fragment's entry: a function's name, or "NAME #N" for the Nth of the
// functions of that name (gprofng's `cprepend f 2`).
std::string numbered_function(const std::string& name, size_t which);

// Throws std::runtime_error when a name matches no function with data (or
// has no Nth).
Document stack_fragment_view(const StackProfile& profile, const ProgramStructure& structure,
                             const MetricRegistry& registry, const ViewRequest& request,
                             const std::vector<std::string>& fragment);

}  // namespace lumen::analysis
