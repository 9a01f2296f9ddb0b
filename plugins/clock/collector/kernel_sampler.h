// The kernel's frames for a thread's clock samples (collect -k on): a
// perf_event task-clock counter of the thread overflows every interval of
// its CPU time (user and kernel), each overflow leaving a sample in the
// counter's ring, with the kernel's call chain when the thread was in the
// kernel. It signals nothing: the thread's CPU-time timer still does, and
// its handler reads the samples queued since the previous one (a thread
// back from a long system call finds one per interval it spent there).
// A perf signal would be sent at the overflow, in the middle of the system
// call, and cut it short (a read of /dev/zero returns part of its count);
// the timer's is sent as the thread returns to user space. No descriptor
// stays open: the ring's mapping holds the counter, and unmapping it ends
// it (a program's descriptors are numbered as without collect).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace lumen::clock {

// The deepest kernel chain kept (the kernel's own default limit is 127).
inline constexpr uint32_t kMaxKernelFrames = 64;

struct KernelSampler {
  char* ring;  // metadata page, then the data pages; nullptr: not armed
  size_t ring_bytes;
  bool armed;
};

// Why kernel frames cannot be recorded in this process, into `why` (empty
// when they can): a counter like the threads' is opened once and closed,
// through `run_elsewhere` as arm_kernel_sampler does.
void kernel_frames_obstacle(int64_t interval_ns, long (*run_elsewhere)(long (*work)(void*), void* argument),
                            char* why, size_t why_size);

// Arms `sampler` on thread `tid` of this process: a sample every
// `interval_ns` of its CPU time. `run_elsewhere` (the runtime's
// run_in_own_table, or null) opens the counter where the descriptor takes
// no number of the program's; where it cannot, the descriptor is the
// calling thread's for a moment. False, with errno, when it cannot be
// (descriptors or locked memory used up): the thread's samples then have
// no kernel frames.
bool arm_kernel_sampler(KernelSampler& sampler, int64_t interval_ns, pid_t tid,
                        long (*run_elsewhere)(long (*work)(void*), void* argument));

// [signal-safe] Ends the counter (its ring unmapped).
void disarm_kernel_sampler(KernelSampler& sampler);

// One sample read from the ring.
struct KernelSample {
  bool in_kernel;                    // the counter overflowed in kernel mode
  uint32_t frame_count;              // kernel frames, leaf first (0 in user mode)
  uint64_t frames[kMaxKernelFrames];
};

// [signal-safe] Where the samples queued in the ring end now.
uint64_t kernel_samples_end(const KernelSampler& sampler);

// [signal-safe] Calls `visit` on each sample queued before `end`, in order,
// and returns how many there were; with `lost`, adds the samples the
// kernel dropped meanwhile (a full ring).
size_t visit_kernel_samples(const KernelSampler& sampler, uint64_t end, void (*visit)(const KernelSample&, void*),
                            void* context, uint64_t* lost);

// [signal-safe] Gives the ring's space before `end` back to the kernel.
void consume_kernel_samples(KernelSampler& sampler, uint64_t end);

}  // namespace lumen::clock
