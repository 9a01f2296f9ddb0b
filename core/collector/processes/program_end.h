// A program may end without calling exit: main leaves through pthread_exit
// and its other threads return later (glibc calls exit(0) when the last
// thread it counts ends, and it counts the collector's threads too), or its
// last thread makes the exit system call (the only way out under seccomp's
// strict mode). The collector's threads, which block every signal, would
// then keep the process alive for ever, deaf even to SIGTERM.
//
// A runtime thread looks every 100 ms: once no thread of the program is
// left, collection stops as at an exit and the collector's threads end, so
// the process ends as it would have without collect: by glibc's exit(0) on
// the last thread it counts (the program's atexit handlers run), or with
// the status the program's last thread gave the exit system call.
#pragma once

namespace lumen::collector {

// Not signal-safe. Starts the looking thread (collection has started).
void program_end_watch_start();

// Not signal-safe. Ends it and waits for it; nothing when it is the caller.
void program_end_watch_stop();

// Not signal-safe. On the main thread leaving through pthread_exit (its
// thread-end key): the keeper of the program's table starts (above).
void program_end_main_leaves();

// In a forked child: the parent's thread is not there. Collected: start
// anew; not collected: forget it.
void program_end_watch_after_fork();
void program_end_watch_forget();

}  // namespace lumen::collector
