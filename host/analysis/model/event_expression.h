// gprofng's expressions over an event, as -filters and -indxobj_define take
// them: integers; the tokens
//   THRID, LWPID  thread number (as -thread_list numbers threads; a Linux
//                 thread is its LWP)
//   CPUID         CPU, -1 when the event did not record it
//   SAMPLE, SAMPLE_MAP  sample number (0 before the first sample point)
//   TSTAMP        nanoseconds since collection start
//   EXPID         experiment id (1-based, as -exp_list gives it)
//   HOSTID        the experiment's host (1-based, as -host_list gives it)
//   PID           the experiment's process id (er_kernel's: each process)
// the operators + - * / % (division by zero gives 0), == != < <= > >=,
// && || !, "X IN (a, b, ...)", and parentheses. A comparison is 1 or 0.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace lumen::analysis {

struct ExpressionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The stretch of TSTAMP an expression can be true in, where it says (a
// comparison of TSTAMP with a number, IN, and these joined by && or ||):
// nanoseconds since collection start, inclusive; unbounded where not.
struct TimestampBounds {
  std::optional<int64_t> from_ns, to_ns;
};

struct EventTokens {
  int64_t thread = 0, cpu = -1, sample = 0, timestamp = 0, experiment = 1, host = 0, pid = 0;
};

class EventExpression {
 public:
  // Throws ExpressionError naming what it could not read.
  static EventExpression parse(const std::string& text);
  int64_t evaluate(const EventTokens& tokens) const;
  const std::string& text() const { return text_; }
  // Whether it reads the CPU (events without one are then all kept).
  bool uses_cpu() const { return uses_cpu_; }
  // Whether it reads the time (TSTAMP): then it can select some of the
  // events of one thread, CPU and sample and not others.
  bool uses_time() const { return uses_time_; }
  // Where TSTAMP must be for it to be true (a reading skips the blocks of
  // events outside); never narrower than what it selects.
  TimestampBounds timestamp_bounds() const;

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
  bool uses_cpu_ = false;
  bool uses_time_ = false;
};

}  // namespace lumen::analysis
