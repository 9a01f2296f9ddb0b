#include "object_visibility.h"

#include <memory>
#include <sstream>

namespace lumen::analysis {

namespace {

std::vector<std::string> names_in(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    const size_t a = name.find_first_not_of(" \t");
    if (a != std::string::npos) names.push_back(name.substr(a, name.find_last_not_of(" \t") - a + 1));
  }
  return names;
}

}  // namespace

void ObjectVisibility::set(const std::string& list, ObjectShow mode) {
  for (const std::string& name : names_in(list)) {
    if (name == "all") rules_.clear();
    rules_.emplace_back(name, mode);
  }
}

void ObjectVisibility::select(const std::string& list) {
  rules_ = {{"all", ObjectShow::Hide}};
  for (const std::string& name : names_in(list)) rules_.emplace_back(name, ObjectShow::Show);
}

ObjectShow ObjectVisibility::mode_of(const LoadObject& object) const {
  for (auto rule = rules_.rbegin(); rule != rules_.rend(); ++rule)
    if (rule->first == "all" || rule->first == object.name || rule->first == object.path) return rule->second;
  return ObjectShow::Show;
}

FrameRewrite ObjectVisibility::rewrite(ProgramStructure& structure) const {
  if (rules_.empty()) return {};
  auto modes = std::make_shared<std::unordered_map<ObjectId, ObjectShow>>();
  const ObjectVisibility rules = *this;
  return [&structure, modes, rules](std::vector<FunctionId>& frames) {
    std::vector<FunctionId> kept;
    kept.reserve(frames.size());
    for (const FunctionId f : frames) {
      const ObjectId object = structure.function(f).object;
      ObjectShow mode = ObjectShow::Show;
      if (object != kNoObject) {
        auto [it, inserted] = modes->try_emplace(object, ObjectShow::Show);
        if (inserted) it->second = rules.mode_of(structure.object(object));
        mode = it->second;
      }
      const bool after_same_object = !kept.empty() && structure.function(kept.back()).object == object;
      if (mode == ObjectShow::Hide) {
        const FunctionId folded = structure.object_function(object);
        if (kept.empty() || kept.back() != folded) kept.push_back(folded);
      } else if (mode == ObjectShow::Api && after_same_object) {
        kept.back() = f;  // frames run leaf first: the outermost of the run is the entry point
      } else {
        kept.push_back(f);
      }
    }
    frames.swap(kept);
  };
}

const char* object_show_word(ObjectShow mode) {
  switch (mode) {
    case ObjectShow::Hide: return "hide";
    case ObjectShow::Api: return "API";
    default: return "show";
  }
}

}  // namespace lumen::analysis
