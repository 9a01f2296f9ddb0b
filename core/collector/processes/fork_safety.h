// Every lock the runtime or its libraries may hold is safe across fork: a
// thread that forks while others are inside libunwind (whose locks are
// process-wide) or the load-object tracker would leave the child with a
// lock nobody releases, and the child's first traced malloc would wait for
// it for ever.
#pragma once

namespace lumen::collector {

// Not signal-safe. Registers the fork handlers, once; a constructor calls
// it as the runtime loads, before anything else registers its own
// (descendants.h, the program's), so that these run last before the fork
// and first in the child (the timer interposers' reset among them).
void fork_safety_init();

}  // namespace lumen::collector
