// The flame graph's input: each unique stack of functions once. Stacks of
// different PCs in the same functions are merged, so the report's size
// follows the program's structure, not the number of events.
#include <map>
#include <unordered_map>

#include "report_data.h"
#include "metric_sum.h"

namespace lumen::er_html {

nlohmann::json stack_table(const analysis::StackProfile& profile, const analysis::ProgramStructure&,
                           const std::vector<size_t>& metrics, std::vector<analysis::FunctionId>& function_list) {
  // Frames are indices into function_list, shared by every table of a report.
  std::unordered_map<analysis::FunctionId, size_t> index;
  for (size_t i = 0; i < function_list.size(); ++i) index.emplace(function_list[i], i);
  std::map<std::vector<size_t>, std::vector<int64_t>> merged;
  const auto& stacks = profile.stacks();
  for (size_t s = 0; s < stacks.size(); ++s) {
    const auto values = profile.values(s);
    bool any = false;
    for (const size_t m : metrics) any = any || values[m] != 0;
    if (!any) continue;
    const auto frames = profile.frames(stacks[s]);
    std::vector<size_t> root_first;
    root_first.reserve(frames.size());
    for (size_t k = frames.size(); k-- > 0;) {
      const auto [it, inserted] = index.try_emplace(frames[k], function_list.size());
      if (inserted) function_list.push_back(frames[k]);
      root_first.push_back(it->second);
    }
    auto& sum = merged[root_first];
    if (sum.empty()) sum.assign(metrics.size(), 0);
    for (size_t m = 0; m < metrics.size(); ++m) analysis::add_saturating(sum[m], values[metrics[m]]);
  }
  nlohmann::json table = nlohmann::json::array();
  for (const auto& [frames, values] : merged) table.push_back({{"f", frames}, {"v", values}});
  return table;
}

}  // namespace lumen::er_html
