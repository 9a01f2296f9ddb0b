#include "stacks/loadobject_tracker.h"

#include <elf.h>
#include <link.h>
#include <sys/syscall.h>
#include <signal.h>
#include <sys/stat.h>
#include <lumen/record_format.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "loadobject_identity.h"
#include "recording/stream_writer.h"
#include "time/tsc_clock.h"

namespace lumen::collector {

namespace {

struct LoadedObject {
  std::string path;
  uint64_t bias;
  uint64_t start;
  uint64_t end;
  metadata::LoadObjectIdentity identity;  // its build-id here; the file's figures when recorded
};

std::mutex g_mutex;
// Function-local: used from the runtime's constructor, before globals of
// this file would be constructed. Guarded by g_mutex.
std::vector<LoadedObject>& known() {
  static auto* objects = new std::vector<LoadedObject>;
  return *objects;
}
int g_stream = -1;

std::string executable_path() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string("<executable>");
}

// The GNU build-id among the object's mapped notes, copied into `identity`.
void read_mapped_build_id(const dl_phdr_info* info, metadata::LoadObjectIdentity& identity) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const size_t align = ph.p_align == 8 ? 8 : 4;
    const auto padded = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
    const auto* note = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    for (size_t at = 0; at + sizeof(ElfW(Nhdr)) <= ph.p_memsz;) {
      ElfW(Nhdr) header;
      std::memcpy(&header, note + at, sizeof header);
      const size_t name_at = at + sizeof header, desc_at = name_at + padded(header.n_namesz);
      if (desc_at + header.n_descsz > ph.p_memsz) break;
      if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 && std::memcmp(note + name_at, "GNU", 4) == 0 &&
          header.n_descsz <= sizeof identity.build_id) {
        identity.build_id_bytes = header.n_descsz;
        std::memcpy(identity.build_id, note + desc_at, header.n_descsz);
        return;
      }
      at = desc_at + padded(header.n_descsz);
    }
  }
}

int collect_object(dl_phdr_info* info, size_t, void* data) {
  auto* objects = static_cast<std::vector<LoadedObject>*>(data);
  uint64_t start = UINT64_MAX, end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    start = std::min<uint64_t>(start, info->dlpi_addr + ph.p_vaddr);
    end = std::max<uint64_t>(end, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  if (start >= end) return 0;
  const bool is_main = info->dlpi_name == nullptr || info->dlpi_name[0] == '\0';
  objects->push_back({is_main && objects->empty() ? executable_path() : std::string(info->dlpi_name ? info->dlpi_name : ""),
                      info->dlpi_addr, start, end, {}});
  read_mapped_build_id(info, objects->back().identity);
  return 0;
}

// dl_iterate_phdr holds the dynamic linker's lock, which libunwind takes
// too while it holds locks of its own; a profiling signal that unwound here
// could wait on a thread that waits on us. No signal is taken meanwhile (by
// system call, past the mask interposers).
std::vector<LoadedObject> loaded_now() {
  std::vector<LoadedObject> objects;
  sigset_t all, saved;
  sigfillset(&all);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &saved, _NSIG / 8);
  objects.reserve(256);  // allocate outside the lock where it is enough
  dl_iterate_phdr(collect_object, &objects);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved, nullptr, _NSIG / 8);
  return objects;
}

std::atomic<uint64_t> g_latest_change_ns{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free && sizeof(std::atomic<uint64_t>) == sizeof(uint64_t),
              "read by plugins' interposers as a plain 64-bit word");

bool same(const LoadedObject& a, const LoadedObject& b) { return a.start == b.start && a.path == b.path; }

// The file's figures as the object is recorded mapped (objects are mapped
// from what the path named moments before).
void examine_file(LoadedObject& object) {
  struct stat st;
  if (object.path.empty() || object.path[0] != '/' || stat(object.path.c_str(), &st) != 0) return;
  object.identity.file_size = static_cast<uint64_t>(st.st_size);
  object.identity.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  object.identity.inode = st.st_ino;
  object.identity.device = st.st_dev;
}

void record(const LoadedObject& object, uint32_t event) {
  char buffer[sizeof(lumen_loadobject_record) + 4096 + sizeof(metadata::LoadObjectIdentity)];
  lumen_loadobject_record header{};
  header.time_ns = tsc_now_ns();
  g_latest_change_ns.store(header.time_ns, std::memory_order_release);
  header.load_bias = object.bias;
  header.start = object.start;
  header.end = object.end;
  header.event = event;
  header.path_bytes = static_cast<uint32_t>(std::min<size_t>(object.path.size(), 4096));
  std::memcpy(buffer, &header, sizeof header);
  std::memcpy(buffer + sizeof header, object.path.data(), header.path_bytes);
  size_t bytes = sizeof header + header.path_bytes;
  if (event == LUMEN_LOADOBJECT_MAPPED) {
    std::memcpy(buffer + bytes, &object.identity, sizeof object.identity);
    bytes += sizeof object.identity;
  }
  write_record(g_stream, LUMEN_RECORD_LOADOBJECT, buffer, static_cast<uint16_t>(bytes));
}

}  // namespace

void loadobject_tracker_start(int loadobjects_stream) {
  std::lock_guard lock(g_mutex);
  g_stream = loadobjects_stream;
  known() = loaded_now();
  for (LoadedObject& object : known()) {
    examine_file(object);
    record(object, LUMEN_LOADOBJECT_MAPPED);
  }
}

void loadobject_tracker_rescan() {
  if (g_stream < 0) return;
  std::lock_guard lock(g_mutex);
  std::vector<LoadedObject> now = loaded_now();
  for (const LoadedObject& old : known()) {
    bool still = false;
    for (const LoadedObject& o : now) still = still || same(o, old);
    if (!still) record(old, LUMEN_LOADOBJECT_UNMAPPED);
  }
  for (LoadedObject& o : now) {
    bool seen = false;
    for (const LoadedObject& old : known()) seen = seen || same(o, old);
    if (seen) continue;
    examine_file(o);
    record(o, LUMEN_LOADOBJECT_MAPPED);
  }
  known() = std::move(now);
}

const volatile uint64_t* loadobject_latest_change_ns() {
  return reinterpret_cast<const volatile uint64_t*>(&g_latest_change_ns);
}

void loadobject_tracker_fork_prepare() { g_mutex.lock(); }
void loadobject_tracker_fork_done() { g_mutex.unlock(); }

void loadobject_tracker_dynamic_code(const char* name, uint64_t start, uint64_t size) {
  if (g_stream < 0) return;
  char buffer[sizeof(lumen_dynamic_code_record) + 1024];
  lumen_dynamic_code_record header{};
  header.time_ns = tsc_now_ns();
  header.start = start;
  header.size = size;
  header.name_bytes = name ? static_cast<uint32_t>(strnlen(name, 1024)) : 0;
  std::memcpy(buffer, &header, sizeof header);
  if (name != nullptr) std::memcpy(buffer + sizeof header, name, header.name_bytes);
  write_record(g_stream, LUMEN_RECORD_DYNAMIC_CODE, buffer, static_cast<uint16_t>(sizeof header + header.name_bytes));
}

}  // namespace lumen::collector
