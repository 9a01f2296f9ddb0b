#include "recording/stream_writer.h"

#include <fcntl.h>
#include <lumen/record_format.h>
#include "recording/raw_syscalls.h"
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "recording/file_keeper.h"
#include "recording/run_pool.h"
#include "recording/runtime_fds.h"
#include "threads/own_descriptor_table.h"
#include "stacks/stack_capture.h"
#include "recording/thread_own_counter.h"
#include "threads/program_thread_state.h"

namespace lumen::collector {

namespace {

struct DataFile {
  int fd = -1;
  FileIdentity identity;  // written before fd is published
  std::atomic<uint64_t> next_block_offset{0};
  char name[64] = {};
};

DataFile g_files[kMaxStreams];
char g_directory[4096];  // where the data files are (a forked child's own)
std::atomic<int> g_file_count{0};
std::atomic<uint64_t> g_dropped[static_cast<int>(DropCause::kCount)];
// The first failure to extend or map a data file (a full disk: ENOSPC), for
// the log: why records were dropped.
std::atomic<int> g_write_errno{0};
std::atomic<const DataFile*> g_write_failed_file{nullptr};
std::atomic<bool> g_abandoned{false};
std::atomic<uint64_t> g_size_limit{0};
std::atomic<uint64_t> g_bytes_mapped{0};  // counted only under a size limit
std::atomic<bool> g_limit_reached{false};
void (*g_on_limit_reached)() = nullptr;

// Counts one more block against the size limit; false when it would pass it.
bool within_size_limit() {
  const uint64_t limit = g_size_limit.load(std::memory_order_relaxed);
  if (limit == 0) return true;
  if (g_bytes_mapped.fetch_add(LUMEN_BLOCK_BYTES, std::memory_order_relaxed) + LUMEN_BLOCK_BYTES <= limit) return true;
  if (!g_limit_reached.exchange(true, std::memory_order_acq_rel) && g_on_limit_reached != nullptr) g_on_limit_reached();
  return false;
}

int open_data_file(const char* name, int flags) {
  char path[sizeof g_directory + 80];
  std::snprintf(path, sizeof path, "%s/%s", g_directory, name);
  return adopt_runtime_fd(raw_open(path, O_RDWR | O_CLOEXEC | flags, 0644));
}

// [signal-safe] The file's descriptor, opened again when the program closed
// it behind the runtime's back (a raw close_range system call): its blocks
// already mapped stay valid, new ones need the file. One thread reopens;
// the others drop their record meanwhile.
std::atomic<bool> g_reopening{false};
int file_fd(DataFile& file) {
  if (g_reopening.load(std::memory_order_acquire)) return -1;
  const int fd = __atomic_load_n(&file.fd, __ATOMIC_ACQUIRE);
  if (still_open_on(fd, file.identity)) return fd;
  // A thread with a table of its own never opens the runtime's files: its
  // numbers must mean what they mean in the program's table.
  if (has_own_descriptor_table()) return -1;
  if (g_reopening.exchange(true, std::memory_order_acquire)) return -1;
  int fresh = __atomic_load_n(&file.fd, __ATOMIC_ACQUIRE);
  if (!still_open_on(fresh, file.identity)) {
    fresh = open_data_file(file.name, 0);
    file.identity = identity_of(fresh);
    __atomic_store_n(&file.fd, fresh, __ATOMIC_RELEASE);
  }
  g_reopening.store(false, std::memory_order_release);
  return fresh;
}

// [signal-safe] Gives `bytes` of the file at `offset` back to the file
// system: they read as zeros, which end a block or are a block never
// handed out. Refused by file systems without holes: they then stay zeros.
// Where the files are (recording/file_keeper.h), without waiting for it.
void punch_hole_here(const PostedValues& hole) {
  const DataFile& file = g_files[hole.values[0]];
  const int fd = __atomic_load_n(&file.fd, __ATOMIC_ACQUIRE);
  if (fd >= 0 && still_open_on(fd, file.identity))
    raw_fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(hole.values[1]),
                  static_cast<off_t>(hole.values[2]));
}

void punch_hole(const DataFile& file, uint64_t offset, uint64_t bytes) {
  post_to_file_keeper(punch_hole_here, PostedValues{{static_cast<uint64_t>(&file - g_files), offset, bytes, 0}});
}

// A thread's first run is one block; each next run doubles, up to
// kMaxRunBlocks: a thread that writes little holds one block, a busy one
// takes two megabytes at a time, prepared ahead by the run pool.

// [signal-safe] Keeps the first failure's errno and file.
void note_write_failure(const DataFile& file) {
  int none = 0;
  if (g_write_errno.compare_exchange_strong(none, errno != 0 ? errno : EIO, std::memory_order_acq_rel))
    g_write_failed_file.store(&file, std::memory_order_release);
}

// Reserves the next `blocks` blocks of the file, extends the file over them
// (a one-byte pwrite at their end never shrinks the file, unlike a racing
// ftruncate) and maps them. Blocks of the run not yet handed out are holes
// the readers skip. Only raw system calls: safe in a handler.
char* map_new_run_here(DataFile& file, uint32_t blocks, uint64_t& offset) {
  const int fd = file_fd(file);
  if (fd < 0) return nullptr;
  const uint64_t bytes = uint64_t{blocks} * LUMEN_BLOCK_BYTES;
  offset = file.next_block_offset.fetch_add(bytes, std::memory_order_relaxed);
  const char zero = 0;
  if (raw_pwrite(fd, &zero, 1, static_cast<off_t>(offset + bytes - 1)) != 1) return note_write_failure(file), nullptr;
  void* run = raw_mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(offset));
  if (run == MAP_FAILED) return note_write_failure(file), nullptr;
  // Each first touch of a page would otherwise start read-around over a
  // file region that is nothing but holes: half the cost of a record.
  syscall(SYS_madvise, run, bytes, MADV_RANDOM);
  return static_cast<char*>(run);
}

// A full run (kMaxRunBlocks, 2 MiB) outside a size limit: on a 2 MiB
// boundary of the file and of the address space, its blocks allocated and
// advised as huge pages, so that a file system with large folios (ext4
// since Linux 6.16) maps it with one page-table entry. On a virtual machine
// with shadow page tables each 4 KiB page's first write costs 5-7 µs; such
// a run's pages cost about 1 µs each, made writable and touched. The gap
// left before it in the file is whole blocks of zeros, which readers skip.
// Elsewhere (no large folios, THP off) it is an ordinary run.
char* map_full_run_here(DataFile& file, uint64_t& offset) {
  const int fd = file_fd(file);
  if (fd < 0) return nullptr;
  constexpr uint64_t kHuge = uint64_t{2} << 20;
  constexpr uint64_t bytes = uint64_t{kMaxRunBlocks} * LUMEN_BLOCK_BYTES;
  static_assert(bytes % kHuge == 0, "a full run is whole huge pages");
  uint64_t seen = file.next_block_offset.load(std::memory_order_relaxed);
  do {
    offset = (seen + kHuge - 1) & ~(kHuge - 1);
  } while (!file.next_block_offset.compare_exchange_weak(seen, offset + bytes, std::memory_order_relaxed));
  const char zero = 0;
  if (raw_fallocate(fd, 0, static_cast<off_t>(offset), static_cast<off_t>(bytes)) != 0 &&
      raw_pwrite(fd, &zero, 1, static_cast<off_t>(offset + bytes - 1)) != 1)
    return note_write_failure(file), nullptr;
  void* reserved = raw_mmap(nullptr, bytes + kHuge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) return note_write_failure(file), nullptr;
  char* const reserved_end = static_cast<char*>(reserved) + bytes + kHuge;
  char* const aligned = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(reserved) + kHuge - 1) & ~(kHuge - 1));
  if (raw_mmap(aligned, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, static_cast<off_t>(offset)) ==
      MAP_FAILED) {
    note_write_failure(file);
    raw_munmap(reserved, bytes + kHuge);
    return nullptr;
  }
  if (aligned > reserved) raw_munmap(reserved, static_cast<size_t>(aligned - static_cast<char*>(reserved)));
  if (aligned + bytes < reserved_end) raw_munmap(aligned + bytes, static_cast<size_t>(reserved_end - (aligned + bytes)));
  syscall(SYS_madvise, aligned, bytes, MADV_HUGEPAGE);
  return aligned;
}

// Where the files are (recording/file_keeper.h): mapped there.
char* map_new_run(DataFile& file, uint32_t blocks, uint64_t& offset) {
  char* run = nullptr;
  auto map = [&] { run = map_new_run_here(file, blocks, offset); };
  return with_runtime_files(map) ? run : nullptr;
}

char* map_full_run(DataFile& file, uint64_t& offset) {
  char* run = nullptr;
  auto map = [&] { run = map_full_run_here(file, offset); };
  return with_runtime_files(map) ? run : nullptr;
}

// A used run goes to the run pool's thread to be unmapped: a munmap of a
// shared mapping is a TLB shootdown across the process's CPUs (0.35 ms a
// megabyte on a virtual machine here), better paid off the program's threads.
void unmap_run(ThreadBlock& block) {
  const uint64_t bytes = uint64_t{block.run_blocks} * LUMEN_BLOCK_BYTES;
  if (block.run_base != nullptr && !hand_back_run(block.run_base, bytes)) raw_munmap(block.run_base, bytes);
  block.run_base = nullptr;
  block.run_blocks = 0;
  block.run_next = 0;
  block.run_prepared = false;
}

void write_block_header(char* fresh, uint32_t tid) {
  auto* header = reinterpret_cast<lumen_block_header*>(fresh);
  header->format_major = LUMEN_FORMAT_MAJOR;
  header->format_minor = LUMEN_FORMAT_MINOR;
  header->block_bytes = LUMEN_BLOCK_BYTES;
  header->thread_id = tid;
  __atomic_store_n(&header->magic, LUMEN_BLOCK_MAGIC, __ATOMIC_RELEASE);
}

// The next block of the thread's run, a new run mapped when it is used up
// (the old one is returned in `retired` to be unmapped once the block has
// moved). The header is written here, when the block comes into use.
char* take_block(int stream, ThreadBlock& block, uint32_t tid, ThreadBlock& retired) {
  if (!within_size_limit()) return nullptr;
  bool prepared = false;
  if (block.run_base == nullptr || block.run_next == block.run_blocks) {
    const uint32_t blocks = block.run_blocks == 0 ? 1 : std::min(block.run_blocks * 2, kMaxRunBlocks);
    uint64_t offset = 0;
    PreparedRun ready{};
    prepared = blocks == kMaxRunBlocks ? take_prepared_run(stream, block.run_offset, ready)
               : blocks == 1 && g_size_limit.load(std::memory_order_relaxed) == 0 && take_first_block(stream, ready);
    char* run = prepared                                                    ? ready.base
                : blocks == kMaxRunBlocks && g_size_limit.load(std::memory_order_relaxed) == 0
                    ? map_full_run(g_files[stream], offset)
                    : map_new_run(g_files[stream], blocks, offset);
    if (prepared) offset = ready.offset;
    if (run == nullptr) return nullptr;
    retired.run_base = block.run_base;
    retired.run_blocks = block.run_blocks;
    block.run_base = run;
    block.run_offset = offset;
    block.run_blocks = blocks;
    block.run_next = 0;
    block.run_prepared = prepared;
  }
  char* fresh = block.run_base + uint64_t{block.run_next++} * LUMEN_BLOCK_BYTES;
  // Its pages made writable in one call rather than a fault on each first
  // write (a fault is an exception taken by the traced thread; on a virtual
  // machine it costs microseconds); a prepared run's are already. Kernels
  // before 5.14 refuse the advice and the pages fault in as they are written.
  // All of it, even for a thread that writes one record: a page first
  // written on a full disk is a SIGBUS (hostile.FullDisk).
  if (!block.run_prepared) syscall(SYS_madvise, fresh, LUMEN_BLOCK_BYTES, kPopulateWrite);
  write_block_header(fresh, tid);
  return fresh;
}

// A nested writer (a signal handler on this thread) that found no room
// while the writer it interrupted was changing blocks writes its record in
// the thread's block apart for the stream, mapping one (a run of one block,
// whose untouched pages stay a hole) if there is none. Rare: only within a
// block change, a few microseconds each 64 KiB of a stream that a handler
// also writes (the stacks: a sample's new stack while a traced call's is
// interned). Handlers nest: one interrupted while installing a block finds
// the one installed meanwhile and gives its own back; none unmaps a block
// another may be writing into.
bool write_in_block_apart(int stream, ThreadBlock& block, uint16_t kind, const void* payload, uint16_t payload_bytes,
                          uint32_t tid) {
  if (block.apart_base.load(std::memory_order_relaxed) == nullptr) {
    if (!within_size_limit()) return false;
    uint64_t offset = 0;
    char* fresh = map_new_run(g_files[stream], 1, offset);
    if (fresh == nullptr) return false;
    write_block_header(fresh, tid);
    block.apart_used.store(sizeof(lumen_block_header), std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    char* none = nullptr;
    if (!block.apart_base.compare_exchange_strong(none, fresh, std::memory_order_relaxed))
      raw_munmap(fresh, LUMEN_BLOCK_BYTES);  // its header alone: a block the readers find empty
  }
  char* apart = block.apart_base.load(std::memory_order_relaxed);
  const uint32_t span = lumen_record_span(payload_bytes);
  const uint32_t at = own_thread_fetch_add(block.apart_used, span);
  if (at + span > LUMEN_BLOCK_BYTES) return false;  // 64 KiB within one block change: the block stays full
  char* record = apart + at;
  std::memcpy(record + 4, payload, payload_bytes);
  __atomic_store_n(reinterpret_cast<uint32_t*>(record), lumen_record_word(kind, payload_bytes), __ATOMIC_RELEASE);
  return true;
}

// By the outermost writer or at thread end, when no writer of this thread
// is inside it (a handler that interrupts meanwhile maps another).
void let_go_of_block_apart(ThreadBlock& block) {
  char* apart = block.apart_base.exchange(nullptr, std::memory_order_relaxed);
  if (apart != nullptr && !hand_back_run(apart, LUMEN_BLOCK_BYTES)) raw_munmap(apart, LUMEN_BLOCK_BYTES);
}

// Called only by the outermost writer of this thread and stream. A nested
// writer (a signal handler on this thread) may run between any two of these
// stores and must see them in this order: capacity 0 first, so that it finds
// no room until base and used belong to the fresh block. With plain stores
// the compiler removed the first one as dead (only plain stores around it,
// no read in between that it knows of); the signal fences keep each store
// where it is relative to the others, as a handler on this thread sees them,
// and cost no instruction.
bool refill(int stream, ThreadBlock& block, uint32_t tid) {
  ThreadBlock retired;
  char* fresh = take_block(stream, block, tid, retired);
  if (fresh == nullptr) return false;
  block.capacity.store(0, std::memory_order_relaxed);  // a nested writer arriving now finds no room
  std::atomic_signal_fence(std::memory_order_seq_cst);
  block.base.store(fresh, std::memory_order_relaxed);
  block.used.store(sizeof(lumen_block_header), std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  block.capacity.store(LUMEN_BLOCK_BYTES, std::memory_order_relaxed);
  unmap_run(retired);
  let_go_of_block_apart(block);
  return true;
}

// Reserves `span` bytes in the thread's block and returns where they start.
char* reserve(int stream, ThreadBlock& block, uint32_t span, bool may_refill, uint32_t tid) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    // A handler interrupting here is a nested writer, which never replaces
    // the block: base and capacity stay a pair.
    char* base = block.base.load(std::memory_order_relaxed);
    const uint32_t capacity = block.capacity.load(std::memory_order_relaxed);
    const uint32_t at = own_thread_fetch_add(block.used, span);
    if (base != nullptr && at + span <= capacity) return base + at;
    if (!may_refill) {
      // Given back, so that no gap is left: the writer this one interrupted
      // may have just put a fresh block in, whose capacity is not yet set,
      // and zeros where a record should start end a block for its readers.
      // Handlers nest, so each one's reservation is the last when it undoes.
      own_thread_fetch_add(block.used, 0u - span);
      return nullptr;
    }
    if (!refill(stream, block, tid)) return nullptr;
  }
  return nullptr;
}

}  // namespace

char* map_stream_run(int stream, uint32_t blocks, uint64_t& offset) {
  const bool open = stream >= 0 && stream < g_file_count.load(std::memory_order_acquire);
  if (!open || g_abandoned.load(std::memory_order_relaxed)) return nullptr;
  // Under a size limit nothing is prepared: a prepared run would extend the
  // file before any of its blocks counted against the limit.
  if (g_size_limit.load(std::memory_order_relaxed) != 0) return nullptr;
  return blocks == kMaxRunBlocks ? map_full_run(g_files[stream], offset) : map_new_run(g_files[stream], blocks, offset);
}

void discard_stream_run(int stream, char* base, uint64_t offset, uint32_t blocks) {
  const uint64_t bytes = uint64_t{blocks} * LUMEN_BLOCK_BYTES;
  if (stream >= 0 && stream < g_file_count.load(std::memory_order_acquire)) punch_hole(g_files[stream], offset, bytes);
  raw_munmap(base, bytes);
}

int open_stream(const char* directory, const char* name) {
  const int count = g_file_count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i)
    if (std::strcmp(g_files[i].name, name) == 0) return i;
  if (count >= kMaxStreams || std::strlen(name) >= sizeof(g_files[0].name)) return -1;
  std::snprintf(g_directory, sizeof g_directory, "%s", directory);
  int fd = -1;
  off_t size = 0;
  FileIdentity identity;
  auto open = [&] {
    fd = open_data_file(name, O_CREAT);
    identity = identity_of(fd);
    size = fd < 0 ? 0 : lseek(fd, 0, SEEK_END);  // appending to an existing file keeps what is there
  };
  if (!with_runtime_files(open) || fd < 0) return -1;
  DataFile& file = g_files[count];
  file.identity = identity;
  file.fd = fd;
  const uint64_t aligned = (static_cast<uint64_t>(size) + LUMEN_BLOCK_BYTES - 1) / LUMEN_BLOCK_BYTES * LUMEN_BLOCK_BYTES;
  file.next_block_offset.store(aligned, std::memory_order_relaxed);
  std::strncpy(file.name, name, sizeof file.name - 1);
  g_file_count.store(count + 1, std::memory_order_release);
  return count;
}

bool write_record(int stream, uint16_t kind, const void* payload, uint16_t payload_bytes) {
  const CollectorWork collector_work;
  ThreadState& thread = current_thread();
  // Kind 0 with no payload would make a zero record word, which readers take
  // as the end of the block: refused, so it cannot hide later records.
  if (kind == 0 || stream < 0 || stream >= g_file_count.load(std::memory_order_acquire)) {
    count_dropped_record(DropCause::kUnwritable);
    return false;
  }
  if (thread.finished || g_abandoned.load(std::memory_order_relaxed)) {
    count_dropped_record(thread.finished ? DropCause::kThreadFinished : DropCause::kAfterFork);
    return false;
  }
  ThreadBlock& block = thread.blocks[stream];
  const uint32_t span = lumen_record_span(payload_bytes);
  const bool outermost = own_thread_fetch_add(block.writers, 1) == 0;
  const bool fits = span <= LUMEN_BLOCK_BYTES - sizeof(lumen_block_header);
  char* record = fits ? reserve(stream, block, span, outermost, thread.tid) : nullptr;
  if (record != nullptr) {
    std::memcpy(record + 4, payload, payload_bytes);
    __atomic_store_n(reinterpret_cast<uint32_t*>(record), lumen_record_word(kind, payload_bytes),
                     __ATOMIC_RELEASE);
  }
  own_thread_fetch_add(block.writers, ~uint32_t{0});  // less one
  if (record != nullptr) return true;
  if (fits && !outermost && write_in_block_apart(stream, block, kind, payload, payload_bytes, thread.tid)) return true;
  count_dropped_record(!fits ? DropCause::kUnwritable : outermost ? DropCause::kNoBlock : DropCause::kBlockBusy);
  return false;
}

// The current block was made writable whole (its pages are on disk even if
// never written): the part past its last record goes back to being a hole,
// which reads as the zeros that end a block. A thread that wrote one record
// (a plugin's start record) otherwise left 64 KiB on disk.
void release_unused_tail(DataFile& file, const ThreadBlock& block) {
  const char* base = block.base.load(std::memory_order_relaxed);
  if (base == nullptr || block.run_base == nullptr) return;
  const uint64_t page = 4096;
  const uint64_t used = std::min<uint64_t>(block.used.load(std::memory_order_relaxed), LUMEN_BLOCK_BYTES);
  const uint64_t kept = (used + page - 1) / page * page;
  if (kept >= LUMEN_BLOCK_BYTES) return;
  const uint64_t block_offset = block.run_offset + static_cast<uint64_t>(base - block.run_base);
  punch_hole(file, block_offset + kept, LUMEN_BLOCK_BYTES - kept);
}

// A full run was allocated whole (map_full_run): the blocks the thread
// never took go back to being holes, as they are in a shorter run.
void release_untaken_blocks(DataFile& file, const ThreadBlock& block) {
  if (block.run_blocks != kMaxRunBlocks || block.run_base == nullptr || block.run_next >= block.run_blocks) return;
  punch_hole(file, block.run_offset + uint64_t{block.run_next} * LUMEN_BLOCK_BYTES,
             uint64_t{block.run_blocks - block.run_next} * LUMEN_BLOCK_BYTES);
}

void finish_thread_streams() {
  ThreadState& thread = current_thread();
  thread.finished = true;
  const int count = g_file_count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) {
    ThreadBlock& block = thread.blocks[i];
    if (block.writers.load(std::memory_order_acquire) != 0) continue;
    block.capacity.store(0, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    release_unused_tail(g_files[i], block);
    release_untaken_blocks(g_files[i], block);
    block.base.store(nullptr, std::memory_order_relaxed);
    unmap_run(block);
    let_go_of_block_apart(block);
  }
}

void abandon_streams_after_fork() { g_abandoned.store(true, std::memory_order_relaxed); }

bool redirect_streams_after_fork(const char* directory) {
  ThreadState& thread = current_thread();
  thread.tid = 0;  // the child's own tid on next use
  bool ok = true;
  std::snprintf(g_directory, sizeof g_directory, "%s", directory);
  const int count = g_file_count.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) {
    ThreadBlock& block = thread.blocks[i];
    unmap_run(block);  // the parent's, mapped here too
    let_go_of_block_apart(block);
    block.base.store(nullptr, std::memory_order_relaxed);
    block.capacity.store(0, std::memory_order_relaxed);
    block.used.store(0, std::memory_order_relaxed);
    DataFile& file = g_files[i];
    close_runtime_fd(file.fd);  // the program's table's (files_on_keeper: the parent's keeper's, gone)
    int fd = -1;
    FileIdentity identity;
    auto open = [&] {
      fd = open_data_file(file.name, O_CREAT | O_TRUNC);
      identity = identity_of(fd);
    };
    with_runtime_files(open);
    file.identity = identity;
    file.fd = fd;
    file.next_block_offset.store(0, std::memory_order_relaxed);
    ok = ok && file.fd >= 0;
  }
  for (std::atomic<uint64_t>& dropped : g_dropped) dropped.store(0, std::memory_order_relaxed);
  g_bytes_mapped.store(0, std::memory_order_relaxed);
  g_limit_reached.store(false, std::memory_order_relaxed);
  return ok;
}

void set_size_limit(uint64_t bytes, void (*on_reached)()) {
  g_on_limit_reached = on_reached;
  g_size_limit.store(bytes, std::memory_order_relaxed);
}

bool size_limit_reached() { return g_limit_reached.load(std::memory_order_relaxed); }

void charge_size_limit(uint64_t bytes) {
  if (g_size_limit.load(std::memory_order_relaxed) != 0) g_bytes_mapped.fetch_add(bytes, std::memory_order_relaxed);
}

bool first_write_failure(std::string* file, int* error) {
  const int saved = g_write_errno.load(std::memory_order_acquire);
  const DataFile* failed = g_write_failed_file.load(std::memory_order_acquire);
  if (saved == 0 || failed == nullptr) return false;
  *file = failed->name;
  *error = saved;
  return true;
}

uint64_t dropped_records() {
  uint64_t all = 0;
  for (const std::atomic<uint64_t>& dropped : g_dropped) all += dropped.load(std::memory_order_relaxed);
  return all;
}
uint64_t dropped_records(DropCause cause) { return g_dropped[static_cast<int>(cause)].load(std::memory_order_relaxed); }
void count_dropped_record(DropCause cause) { g_dropped[static_cast<int>(cause)].fetch_add(1, std::memory_order_relaxed); }
void count_plugin_dropped_record() { count_dropped_record(DropCause::kPlugin); }

const char* drop_cause_name(DropCause cause) {
  switch (cause) {
    case DropCause::kThreadFinished: return "thread_finished";
    case DropCause::kBlockBusy: return "block_busy";
    case DropCause::kNoBlock: return "no_block";
    case DropCause::kUnwritable: return "unwritable";
    case DropCause::kAfterFork: return "after_fork";
    case DropCause::kPlugin: return "plugin";
    case DropCause::kCount: break;
  }
  return "unknown";
}

}  // namespace lumen::collector
