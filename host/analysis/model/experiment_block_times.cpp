// The events of a stretch of time without a pass over the whole file: each
// block's earliest and latest event, learnt in one pass, name the blocks a
// time range needs, and only those are decoded (for_each_event_near).
#include <algorithm>

#include "analysis_threads.h"
#include "experiment.h"
#include "progress.h"

namespace lumen::analysis {

const std::vector<Experiment::BlockTimes>& Experiment::block_times(const DataFile& file) const {
  auto known = block_times_.find(&file);
  if (known != block_times_.end()) return known->second;
  std::vector<BlockTimes> times(file.block_offsets.size());
  // Blocks decoded one by one, each alone, a group of them a task.
  const size_t per_task = blocks_per_part(times.size());
  const size_t tasks = (times.size() + per_task - 1) / per_task;
  std::vector<std::exception_ptr> failures(tasks);
  Progress progress("indexing event times");
  run_parts(
      tasks,
      [&](size_t task) {
        try {
          const size_t end = std::min(times.size(), (task + 1) * per_task);
          for (size_t b = task * per_task; b < end; ++b) {
            PartStackIds ids;
            BlockTimes& block = times[b];
            for_each_event_in_blocks(file, b, b + 1, [&block](const DataFile&, const lumen_event& event) {
              block.first_ns = std::min(block.first_ns, event.time_ns);
              block.last_ns = std::max(block.last_ns, event.time_ns);
              ++block.events;
              if (event.cpu >= 0) ++block.events_with_cpu;
            }, ids);
          }
        } catch (...) {
          failures[task] = std::current_exception();
        }
      },
      [&](size_t finished) { progress.update(finished, tasks); });
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return block_times_.emplace(&file, std::move(times)).first->second;
}

std::optional<Experiment::BlocksNear> Experiment::blocks_near(const DataFile& file, uint64_t from_ns,
                                                              uint64_t to_ns) const {
  // A merged state may emit, at the end, events of any block.
  if (!decodes_blocks_apart(file) || file.half->descriptor->decoder_merge != nullptr) return std::nullopt;
  BlocksNear near;
  const std::vector<BlockTimes>& times = block_times(file);
  for (size_t b = 0; b < times.size(); ++b) {
    if (times[b].first_ns <= to_ns && times[b].last_ns >= from_ns) {
      if (!near.runs.empty() && near.runs.back().second == b)
        ++near.runs.back().second;
      else
        near.runs.emplace_back(b, b + 1);
      continue;
    }
    near.events_elsewhere += times[b].events;
    near.events_with_cpu_elsewhere += times[b].events_with_cpu;
  }
  return near;
}

bool Experiment::for_each_event_near(const DataFile& file, uint64_t from_ns, uint64_t to_ns,
                                     const EventVisitor& visit) const {
  const std::optional<BlocksNear> near = blocks_near(file, from_ns, to_ns);
  if (!near) return false;
  for (const auto& [first, end] : near->runs) {
    PartStackIds ids;
    for_each_event_in_blocks(file, first, end, [&](const DataFile& decoded, const lumen_event& event) {
      lumen_event adopted = event;
      adopted.stack_id = adopt_part_id(ids, event.stack_id);
      visit(decoded, adopted);
    }, ids);
  }
  return true;
}

}  // namespace lumen::analysis
