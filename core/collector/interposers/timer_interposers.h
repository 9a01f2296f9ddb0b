// The timer interposers' state a forked child must start afresh
// (timer_interposers.cpp).
#pragma once

namespace lumen::collector {

// Not signal-safe. In a forked child, before anything of the collector's
// makes a timer there (the child's restart arms its clock timers): none of
// the parent's timers exists in the child, a lock another thread of the
// parent held at the fork is free, and the child's timer ids start from 0.
void timer_interposers_after_fork();

}  // namespace lumen::collector
