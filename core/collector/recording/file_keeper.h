// Where no descriptor number is out of the program's reach (its soft
// RLIMIT_NOFILE equals the hard one and cannot be raised, as in many
// containers, or is so high that numbers above it would bloat every fork),
// the runtime's files (data files, log, /proc/self/statm) live in the
// descriptor table of one thread of the runtime's own, lumen-files, and in
// no other: every open, map, hole punched, write and read of them runs on
// that thread, and any other thread (the program's, in a signal handler
// too) asks it and waits. The program's table then holds none of them, so
// its open(), dup() and F_DUPFD return every number they would without
// collect. Elsewhere the files stay in the program's table above its
// soft limit (recording/runtime_fds.h), and nothing is asked.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace lumen::collector {

// Not signal-safe. Starts the keeper where the limit leaves no room and a
// thread with a table of its own can be made; false otherwise (files then
// live in the program's table, as before).
bool file_keeper_start();

// The keeper's thread id while it runs, else 0: the log names it among the
// collector's threads once the log is open.
pid_t file_keeper_tid();

// Not signal-safe. Stops the keeper after the calls under way; its table,
// and every file in it, closes with it. Callers then forget the numbers
// (they meant nothing in any other table) and open again where they are.
void file_keeper_stop();

// In a forked child (one thread): the parent's keeper is not there; the
// child starts its own.
void file_keeper_forget_after_fork();

// [signal-safe] Whether the runtime's files are the keeper's.
bool files_on_keeper();

// [signal-safe] Whether the calling thread waits for the keeper: it is
// inside the runtime's code, maybe holding a writer's state (collect -P
// must not make it detach there).
bool waiting_for_file_keeper();

// [signal-safe] Runs `work(argument)` on the keeper and returns when it
// has run; runs it here when this is the keeper or files are not kept.
// False when it could not run (the keeper stopped or did not answer in
// time): the caller drops what it was writing.
bool with_runtime_files(void (*work)(void*), void* argument);

// [signal-safe] Has the keeper run `work(values)` and returns at once: for
// what the caller need not see done (a hole punched in a data file).
struct PostedValues {
  uint64_t values[4];
};
void post_to_file_keeper(void (*work)(const PostedValues&), const PostedValues& values);

template <typename Work>
bool with_runtime_files(Work& work) {
  return with_runtime_files([](void* w) { (*static_cast<Work*>(w))(); }, &work);
}

}  // namespace lumen::collector
