// Small requests to the /proc reader (task_file_reader.h), each in a slot
// of its own: a thread's few files, or one call run in the reader's table.
// Many threads ask at once when collect -P begins or ends the collection
// of every thread (each arms its counter and reads its schedstat there); in
// slots they are all answered in one wake-up of the reader, where one
// request at a time made each wait for every one before it, a hand-off of
// the CPU each.
#pragma once

#include <lumen/collector_plugin.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace lumen::collector {

// What a request in a slot may carry.
constexpr size_t kSmallRequestFiles = 4;
constexpr size_t kSmallRequestBytes = 2048;

enum class SmallAnswer {
  kDone,            // answered
  kNoPrivateTable,  // the reader has no table of its own: nothing was done
  kNoReader,        // the reader is not running (stopped, or never answered)
  kNoSlot,          // every slot is taken: ask the one-at-a-time way
};

// Whether these files fit one slot.
bool fits_small_request(const lumen_task_file* files, size_t count);

// Caller side. `reader_running` says whether the reader still serves
// (asked again while waiting); `ring` wakes it. `files[i].bytes` is set
// for each file asked (kDone), -1 where it could not be read.
SmallAnswer ask_small_files(lumen_task_file* files, size_t count, bool (*reader_running)(), void (*ring)());
// `work(argument)` on the reader; its result and errno (kDone).
SmallAnswer ask_small_work(long (*work)(void*), void* argument, long* result, int* error,
                           bool (*reader_running)(), void (*ring)());

// Reader side: answers every slot asked. `own_table` false: each is told
// so (kNoPrivateTable).
void serve_small_requests(bool own_table, int task_dir);

// Wakes every caller waiting, to look again whether the reader serves.
void wake_small_requests();

// In a forked child: no request is under way there.
void forget_small_requests();

}  // namespace lumen::collector
