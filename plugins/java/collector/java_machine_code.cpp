#include "java_machine_code.h"

#include <elf.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "../java_names.h"
#include "../java_record.h"

namespace lumen::java {

namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
constexpr uint16_t kMachine = EM_NONE;
#endif

std::atomic<uint64_t> g_limit{0};
std::atomic<uint64_t> g_recorded_bytes{0};
std::atomic<uint64_t> g_recorded_methods{0};
std::atomic<uint64_t> g_cut_methods{0};     // code longer than a record holds
std::atomic<uint64_t> g_skipped_methods{0};  // past the limit
std::atomic<bool> g_limit_noted{false};

// Claims `bytes` of the experiment's budget; false when the limit is reached.
bool claim(uint64_t bytes) {
  const uint64_t limit = g_limit.load(std::memory_order_relaxed);
  uint64_t used = g_recorded_bytes.load(std::memory_order_relaxed);
  do {
    if (used + bytes > limit) return false;
  } while (!g_recorded_bytes.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

// A JVMTI allocation, deallocated at the end of the scope.
template <typename T>
struct JvmtiArray {
  jvmtiEnv* jvmti;
  T* data = nullptr;
  ~JvmtiArray() {
    if (data != nullptr) jvmti->Deallocate(reinterpret_cast<unsigned char*>(data));
  }
};

std::string text_of(jvmtiEnv* jvmti, char* text) {
  std::string copy = text != nullptr ? text : "";
  if (text != nullptr) jvmti->Deallocate(reinterpret_cast<unsigned char*>(text));
  return copy;
}

// The line of bytecode index `bci` in a line table sorted by bytecode index.
int32_t line_of(const std::vector<LineEntry>& lines, int32_t bci) {
  const auto after = std::upper_bound(lines.begin(), lines.end(), bci,
                                      [](int32_t b, const LineEntry& entry) { return b < entry.bci; });
  return after == lines.begin() ? 0 : std::prev(after)->line;
}

}  // namespace

// Each collection counts its own (collect -P attaches again to a JVM that
// kept this plugin loaded).
void java_machine_code_init(uint64_t limit) {
  g_limit.store(limit, std::memory_order_relaxed);
  for (std::atomic<uint64_t>* count : {&g_recorded_bytes, &g_recorded_methods, &g_cut_methods, &g_skipped_methods})
    count->store(0, std::memory_order_relaxed);
  g_limit_noted.store(false, std::memory_order_relaxed);
}

void write_machine_code(const AgentContext& context, jvmtiEnv* jvmti, jmethodID method, const void* code_addr,
                        jint code_size, jint map_length, const jvmtiAddrLocationMap* map) {
  if (code_addr == nullptr || code_size <= 0 || g_limit.load(std::memory_order_relaxed) == 0) return;
  // Class and source file, so that the record alone places the code at lines.
  std::string klass, source;
  jclass declaring = nullptr;
  if (jvmti->GetMethodDeclaringClass(method, &declaring) == JVMTI_ERROR_NONE) {
    char* signature = nullptr;
    if (jvmti->GetClassSignature(declaring, &signature, nullptr) == JVMTI_ERROR_NONE)
      klass = java_type_name(text_of(jvmti, signature));
    char* file = nullptr;
    if (jvmti->GetSourceFileName(declaring, &file) == JVMTI_ERROR_NONE) source = text_of(jvmti, file);
  }
  MachineCode header{};
  header.class_bytes = static_cast<uint16_t>(std::min<size_t>(klass.size(), 4096));
  header.source_bytes = static_cast<uint16_t>(std::min<size_t>(source.size(), 1024));
  std::vector<LineEntry> lines;
  {
    JvmtiArray<jvmtiLineNumberEntry> table{jvmti};
    jint count = 0;
    if (jvmti->GetLineNumberTable(method, &count, &table.data) == JVMTI_ERROR_NONE)
      for (jint i = 0; i < count; ++i)
        lines.push_back({static_cast<int32_t>(table.data[i].start_location), table.data[i].line_number});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const LineEntry& a, const LineEntry& b) { return a.bci < b.bci; });
  // The map, in address order, one entry per change of bytecode index.
  const auto start = reinterpret_cast<uintptr_t>(code_addr);
  std::vector<PcMapEntry> entries;
  for (jint i = 0; map != nullptr && i < map_length; ++i) {
    const auto pc = reinterpret_cast<uintptr_t>(map[i].start_address);
    if (pc < start || pc - start >= uint64_t(code_size)) continue;
    const auto bci = static_cast<int32_t>(map[i].location);
    entries.push_back({static_cast<uint32_t>(pc - start), bci, bci >= 0 ? line_of(lines, bci) : 0});
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const PcMapEntry& a, const PcMapEntry& b) { return a.offset < b.offset; });
  entries.erase(std::unique(entries.begin(), entries.end(),
                            [](const PcMapEntry& a, const PcMapEntry& b) { return a.bci == b.bci && a.line == b.line; }),
                entries.end());
  if (entries.size() > kMaxPcMapEntries) entries.resize(kMaxPcMapEntries);
  const size_t fixed = sizeof header + header.class_bytes + header.source_bytes + entries.size() * sizeof(PcMapEntry);
  const size_t recorded = std::min<size_t>(size_t(code_size), kMaxMachineCodeRecord - fixed);
  while (!entries.empty() && entries.back().offset >= recorded) entries.pop_back();
  if (!claim(recorded)) {
    g_skipped_methods.fetch_add(1, std::memory_order_relaxed);
    if (!g_limit_noted.exchange(true))
      context.runtime->recording->log_note(("java: the machine code of compiled methods reached the limit of " +
                                 std::to_string(g_limit.load()) +
                                 " bytes (option code_limit); later methods' code is not recorded, and -disasm "
                                 "shows no instructions for them")
                                    .c_str());
    return;
  }
  const auto id = reinterpret_cast<uint64_t>(method);
  header.time_ns = context.runtime->time->now_ns();
  header.frame_base = method_encodable(id) ? method_base(id) : 0;
  header.code_start = start;
  header.code_size = static_cast<uint32_t>(code_size);
  header.machine = kMachine;
  header.map_count = static_cast<uint16_t>(entries.size());
  header.recorded_bytes = static_cast<uint16_t>(recorded);
  std::vector<char> record(sizeof header + header.class_bytes + header.source_bytes +
                           entries.size() * sizeof(PcMapEntry) + recorded);
  char* at = record.data();
  const auto put = [&at](const void* data, size_t bytes) {
    if (bytes > 0) std::memcpy(at, data, bytes);
    at += bytes;
  };
  put(&header, sizeof header);
  put(klass.data(), header.class_bytes);
  put(source.data(), header.source_bytes);
  put(entries.data(), entries.size() * sizeof(PcMapEntry));
  // The JIT installed this code and keeps it while the event is posted.
  put(code_addr, recorded);
  if (context.runtime->recording->write_record(context.classes, kMachineCodeRecord, record.data(),
                                    static_cast<uint16_t>(record.size())) == 0) {
    g_recorded_bytes.fetch_sub(recorded, std::memory_order_relaxed);  // dropped, and counted as such by the runtime
    return;
  }
  if (recorded < size_t(code_size)) g_cut_methods.fetch_add(1, std::memory_order_relaxed);
  g_recorded_methods.fetch_add(1, std::memory_order_relaxed);
}

void java_machine_code_report(const lumen_runtime* runtime) {
  const uint64_t methods = g_recorded_methods.load(), skipped = g_skipped_methods.load(), cut = g_cut_methods.load();
  if (methods == 0 && skipped == 0) return;
  std::string note = "java: machine code of " + std::to_string(methods) + " compiled methods recorded (" +
                     std::to_string(g_recorded_bytes.load()) + " bytes)";
  if (cut > 0) note += "; " + std::to_string(cut) + " of them longer than a record holds, recorded in part";
  if (skipped > 0) note += "; " + std::to_string(skipped) + " more past the limit (option code_limit) not recorded";
  runtime->recording->log_note(note.c_str());
}

}  // namespace lumen::java
