// How each collected process ended, in its header.yaml. A process records
// its own exit status as it exits (exit and a return from main through
// on_exit; _exit and _Exit interposed); an ending it cannot see (killed by
// a signal) its parent records when it waits for it (the wait family
// interposed), or, when the parent never waits, as the parent's collection
// ends, from the child's zombie. The founder's ending is collect's to
// record, unless collect is gone by then: then the founder records it and
// says collection was cut short.
#pragma once

#include <string>

namespace lumen::collector {

// Not signal-safe. This process's sub-experiment (or the founder's
// experiment) is `directory`; its header is written.
void process_ending_start(const std::string& directory, bool founder, bool size_limited);

// Not signal-safe. In a forked child being collected into `directory`;
// its children and its waits are its own.
void process_ending_after_fork(const std::string& directory);

// [signal-safe] In a forked child that is not collected.
void process_ending_forget();

// Not signal-safe. Writes the endings of the children this process waited
// for into the sub-experiments of `founder_directory` that have none; with
// `started_children`, also of its children that ended unwaited (read, not
// reaped).
void record_waited_children(const std::string& founder_directory, bool started_children);

}  // namespace lumen::collector
