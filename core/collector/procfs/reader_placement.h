// Where the /proc reader runs while it does work for other threads. A
// perf_event counter opened for another thread is installed by the
// kernel on the CPU that thread last ran on: from any other CPU that is an
// interrupt there and a wait for it (70-300 µs each on a virtual machine,
// the most of a 100-thread attach's counters), from that CPU a local call.
// So the reader moves to the CPU of the threads asking, when several wait
// there, and is let roam again as it was once it has served them.
#pragma once

namespace lumen::collector {

// On the reader, as it starts: the CPUs it may run on (inherited from the
// thread that started it), to be given back after each move.
void reader_placement_start();

// The CPU the calling thread runs on, for a request to carry (-1 unknown).
int asking_cpu();

// Moves the reader onto `cpu`; false when it cannot (not allowed there:
// the work is then done from where it is).
bool move_reader_to(int cpu);

// Gives the reader back the CPUs it had, after a move.
void let_reader_roam();

}  // namespace lumen::collector
