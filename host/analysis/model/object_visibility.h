// Which load objects show their functions (er_print -object_show,
// -object_hide, -object_api, -object_select, -objects_default). A hidden
// object's functions fold into one function named after it ("<libc.so.6>");
// an API object shows only the functions called from outside it (its entry
// points), each keeping the time of the calls inside the object below it.
// Either way every stack keeps its values, so totals do not change.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "program_structure.h"
#include "stack_profile.h"

namespace lumen::analysis {

enum class ObjectShow { Show, Hide, Api };

class ObjectVisibility {
 public:
  // `list`: object names (file name or path) separated by commas; "all"
  // stands for every object. Later settings win over earlier ones.
  void set(const std::string& list, ObjectShow mode);
  // Only these objects show their functions; every other one is hidden.
  void select(const std::string& list);
  void reset() { rules_.clear(); }
  bool empty() const { return rules_.empty(); }

  ObjectShow mode_of(const LoadObject& object) const;
  // The rewrite for StackProfile; empty when every object shows all.
  FrameRewrite rewrite(ProgramStructure& structure) const;

 private:
  std::vector<std::pair<std::string, ObjectShow>> rules_;
};

// "show", "hide", "API".
const char* object_show_word(ObjectShow mode);

}  // namespace lumen::analysis
