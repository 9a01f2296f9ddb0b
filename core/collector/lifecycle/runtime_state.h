// Whether this process is being collected, and the runtime's start and stop.
#pragma once

#include <string>

namespace lumen::collector {

// Not signal-safe. Starts collection if this process is the one collect
// named (LUMEN_TARGET_PID) or a followed descendant; otherwise does nothing.
void start_collection();

// Not signal-safe. Starts collection into `experiment` (its plan written
// there) in a process the runtime was loaded into while it ran (collect
// -P); false when it cannot (the experiment log says why, where it could
// be opened). collect starts each thread's collection (runtime_thread_begin).
bool start_attached_collection(const char* experiment);

// [signal-safe] Whether collection was started by start_attached_collection.
bool attached();
// [signal-safe] After an attach, once collect began the detach: threads
// started from then on are not collected (attach_entry.cpp).
bool detach_begun();

// The founder experiment's directory (empty before collection starts).
const char* founder_directory_path();

// [signal-safe] True between a successful start and the stop.
bool collecting();

// Not signal-safe: run on a thread the runtime sees begin or end.
void runtime_thread_begin();
void runtime_thread_end();

// Not signal-safe. Marks the calling thread as one of the collector's own
// (the runtime's periodic threads, a plugin's): the experiment log names
// it, so analysis does not list it among the program's threads.
void mark_collector_thread();

// Not signal-safe. Names the collector's threads already known, which
// start before the log is open (the file keeper, recording/file_keeper.h;
// the /proc reader of an attach), among them.
void log_collector_threads_started();

// Not signal-safe. The calling thread enters a seccomp sandbox in `mode`
// (1 strict, 2 filter): its collection ends, threads created from now on
// are not collected, and the experiment log says why.
void end_collection_for_sandbox(unsigned long mode);

// [signal-safe] Whether the calling thread is in a seccomp sandbox the
// runtime saw it enter (its own, or one put on every thread): the runtime
// makes no system call there, not even at the process's exit (its header
// then lacks the ending, which a parent that waits for it records).
bool sandboxed_here();

// Not signal-safe. The calling thread puts every thread of the process in
// a seccomp filter: collection ends in the whole process (the collector's
// threads stop before the filter reaches them), and the log says why.
void end_collection_for_sandboxed_process();

// Not signal-safe. Ends collection in this process for good (the API's
// collector_terminate_expt, and process exit).
void stop_collection();

// Not signal-safe. In a forked child: begin a fresh experiment with the
// given lineage, or leave the child uncollected.
void restart_in_forked_child(const std::string& lineage);
void stop_in_forked_child();

}  // namespace lumen::collector
