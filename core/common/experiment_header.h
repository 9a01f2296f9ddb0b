// header.yaml: what one process's experiment was (command, host, plan,
// comments) and how the process ended. One writer for every process of an
// experiment: collect writes the founder's, the runtime each descendant's.
// Hand-written YAML (no YAML library in the target); not signal-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "collection_plan.h"

namespace lumen::metadata {

// What is particular to the process.
struct ProcessFacts {
  std::vector<std::string> command;
  long long start_wall_ns = 0;
  long long start_monotonic_ns = 0;
  int target_pid = 0;
  int parent_pid = 0;   // 0: not recorded (the founder: collect is its parent)
  std::string lineage;  // "" for the founder, "_f1", "_x1", "_rank3", ...
  long rank = -1;       // a parallel job's rank, -1: none
  bool attached = false;  // collect -P: the process ran before collection (start_* are the attach's)
};

struct ProcessEnd {
  bool exited = false;  // else killed by `signal`
  int exit_code = 0;
  int signal = 0;
  long long end_wall_ns = 0;
  std::optional<bool> size_limit_reached;  // said when known (collect -L)
  std::string cut_short;  // why collection did not finish its work; empty when it did
  // collect -P: the process still ran when collect detached (no exit status
  // then), or ended while attached (seen from outside: its status is not).
  bool detached = false;
  bool exit_seen = false;
};

std::string header_text(const CollectionPlan& plan, const ProcessFacts& facts, const ProcessEnd* end);

// The lines `header_text` appends for an ending, for a header written
// before the process ended.
std::string end_text(const ProcessEnd& end);

// Writes header.yaml into `directory` atomically (a temporary file renamed
// over the old one); false with a reason in `error` on failure.
bool write_header_file(const std::string& directory, const std::string& text, std::string& error);

// Adds an ending to a header that has none yet; false when it already has
// one or cannot be written. One append: a reader sees the ending whole or not.
bool append_end(const std::string& directory, const ProcessEnd& end);

// CLOCK_REALTIME in nanoseconds.
long long wall_clock_ns();

}  // namespace lumen::metadata
