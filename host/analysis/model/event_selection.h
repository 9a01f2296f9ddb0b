// Which events a view counts: -thread_select, -sample_select, -cpu_select,
// -rank_select, -host_select and -filters. Lists are Oracle's: "all", or numbers and ranges separated
// by commas ("1,3-5"). A filter expression is clauses joined by "&&":
//   thread in LIST | sample in LIST | cpu in LIST   (also "== N")
//   time >= S | time <= S | time in S1-S2   (seconds since collection start)
//   function == NAME                        (NAME anywhere on the stack)
// or gprofng's expressions (event_expression.h: THRID == 2 || CPUID IN (0,1))
// with FNAME("f") SOME IN STACK as a clause joined by &&.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "event_expression.h"
#include "stack_profile.h"
#include "time_window.h"

namespace lumen::analysis {

struct SelectionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class NumberList {
 public:
  // Throws SelectionError naming `what` ("thread list") and the bad item.
  static NumberList parse(const std::string& text, const std::string& what);
  bool contains(uint64_t n) const;
  bool all() const { return all_; }
  const std::string& text() const { return text_; }

 private:
  bool all_ = false;
  std::string text_;
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;
};

struct EventSelection {
  std::optional<NumberList> threads;  // thread numbers (Experiment::thread_number)
  std::optional<NumberList> samples;  // sample numbers
  std::optional<NumberList> cpus;
  std::optional<NumberList> ranks;    // MPI ranks: "rank:" in each experiment's header
  std::optional<NumberList> hosts;    // host numbers (experiment_hosts.h)
  std::optional<double> from_s, to_s;  // time since collection start, inclusive
  std::vector<std::string> functions;  // each must be on the stack
  std::optional<EventExpression> expression;  // gprofng's syntax

  bool selects_all() const;
  bool selects_cpus() const { return (cpus && !cpus->all()) || (expression && expression->uses_cpu()); }
};

// What a plugin's view (which reads its own records, without CPU or stack
// filters) does with `selection`: a note for each part it cannot apply, the
// CPU list (records carry no CPU: all are kept). Throws SelectionError for a
// function filter, which such a view refuses by name.
std::vector<std::string> record_selection_notes(const std::string& view, const EventSelection& selection);

EventSelection parse_filter_expression(const std::string& expression);

// The time a selection keeps events from ("time in A-B", "time >= S",
// "time <= S", and the TSTAMP comparisons of its gprofng expression): no
// event outside it is selected. Of two selections, the time both keep.
TimeWindow time_window(const EventSelection& selection);
TimeWindow time_window(const EventSelection& a, const EventSelection& b);

// The event filter and the stack filter a StackProfile applies. A CPU list
// chooses among the events that record their CPU; the others are kept.
EventFilter event_filter(const EventSelection& selection, const std::vector<std::unique_ptr<Experiment>>& experiments);
StackFilter stack_filter(const EventSelection& selection, const ProgramStructure& structure);

}  // namespace lumen::analysis
