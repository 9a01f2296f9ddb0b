#include "interposers/call_redirection.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace lumen::collector {

namespace {

struct Redirected {
  std::atomic<uintptr_t>* slot;
  uintptr_t original;
  uintptr_t replacement;
  bool read_only;       // in the object's RELRO pages: made writable for the store
  bool to_interposers;  // taken by redirect_calls_to_interposers
};

// A process with many libraries has a few thousand PLT slots of the
// tracing plugins' functions; the table is static (no allocation).
constexpr int kMaxRedirected = 8192;
Redirected g_redirected[kMaxRedirected];
int g_redirected_count = 0;

// Where ld.so relocated a dynamic entry's address (some it leaves as the
// file's, relative to the load base).
template <typename T>
T* dynamic_address(const dl_phdr_info* info, ElfW(Addr) value) {
  return reinterpret_cast<T*>(value < info->dlpi_addr ? info->dlpi_addr + value : value);
}

// What an object's dynamic section says about its symbols and relocations.
struct ObjectDynamic {
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Rela)* plt = nullptr;
  const ElfW(Rela)* data = nullptr;
  size_t plt_bytes = 0, data_bytes = 0;
  const ElfW(Half)* versions = nullptr;  // DT_VERSYM: a version index per symbol
  const ElfW(Verdef)* defined_versions = nullptr;
  const ElfW(Verneed)* needed_versions = nullptr;
  const uint32_t* gnu_hash = nullptr;
  const uint32_t* hash = nullptr;
};

bool read_dynamic(const dl_phdr_info* info, ObjectDynamic* out) {
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (dynamic == nullptr) return false;
  ObjectDynamic& o = *out;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: o.symbols = dynamic_address<const ElfW(Sym)>(info, d->d_un.d_ptr); break;
      case DT_STRTAB: o.names = dynamic_address<const char>(info, d->d_un.d_ptr); break;
      case DT_JMPREL: o.plt = dynamic_address<const ElfW(Rela)>(info, d->d_un.d_ptr); break;
      case DT_PLTRELSZ: o.plt_bytes = d->d_un.d_val; break;
      case DT_RELA: o.data = dynamic_address<const ElfW(Rela)>(info, d->d_un.d_ptr); break;
      case DT_RELASZ: o.data_bytes = d->d_un.d_val; break;
      case DT_VERSYM: o.versions = dynamic_address<const ElfW(Half)>(info, d->d_un.d_ptr); break;
      case DT_VERDEF: o.defined_versions = dynamic_address<const ElfW(Verdef)>(info, d->d_un.d_ptr); break;
      case DT_VERNEED: o.needed_versions = dynamic_address<const ElfW(Verneed)>(info, d->d_un.d_ptr); break;
      case DT_GNU_HASH: o.gnu_hash = dynamic_address<const uint32_t>(info, d->d_un.d_ptr); break;
      case DT_HASH: o.hash = dynamic_address<const uint32_t>(info, d->d_un.d_ptr); break;
      default: break;
    }
  }
  return o.symbols != nullptr && o.names != nullptr;
}

// The name of version index `index` (DT_VERSYM's, hidden bit cleared) in
// the object: one it needs from another, or one it defines; null for an
// unversioned symbol.
const char* version_name(const ObjectDynamic& o, ElfW(Half) index) {
  if (index < 2) return nullptr;
  for (const ElfW(Verneed)* need = o.needed_versions; need != nullptr;) {
    const auto* aux = reinterpret_cast<const ElfW(Vernaux)*>(reinterpret_cast<const char*>(need) + need->vn_aux);
    for (unsigned i = 0; i < need->vn_cnt; ++i) {
      if (aux->vna_other == index) return o.names + aux->vna_name;
      aux = reinterpret_cast<const ElfW(Vernaux)*>(reinterpret_cast<const char*>(aux) + aux->vna_next);
    }
    need = need->vn_next == 0 ? nullptr
                              : reinterpret_cast<const ElfW(Verneed)*>(reinterpret_cast<const char*>(need) + need->vn_next);
  }
  for (const ElfW(Verdef)* def = o.defined_versions; def != nullptr;) {
    if (def->vd_ndx == index) {
      const auto* aux = reinterpret_cast<const ElfW(Verdaux)*>(reinterpret_cast<const char*>(def) + def->vd_aux);
      return o.names + aux->vda_name;
    }
    def = def->vd_next == 0 ? nullptr
                            : reinterpret_cast<const ElfW(Verdef)*>(reinterpret_cast<const char*>(def) + def->vd_next);
  }
  return nullptr;
}

// How many entries the object's dynamic symbol table has (its hash table
// says; the section headers need not be mapped).
size_t symbol_count(const ObjectDynamic& o) {
  if (o.hash != nullptr) return o.hash[1];
  if (o.gnu_hash == nullptr) return 0;
  const uint32_t buckets = o.gnu_hash[0], first = o.gnu_hash[1], bloom_words = o.gnu_hash[2];
  const auto* bucket = reinterpret_cast<const uint32_t*>(reinterpret_cast<const ElfW(Addr)*>(o.gnu_hash + 4) + bloom_words);
  const uint32_t* chain = bucket + buckets;
  uint32_t last = 0;
  for (uint32_t b = 0; b < buckets; ++b) last = bucket[b] > last ? bucket[b] : last;
  if (last < first) return first;
  while ((chain[last - first] & 1) == 0) ++last;
  return last + 1;
}

// A function the interposing object defines under a libc name.
struct Definition {
  const char* name;
  const char* version;  // null: unversioned, matches any version asked for
  uintptr_t address;
  bool hidden;  // an older version (symbol@VERSION): never the default
};

constexpr int kMaxDefinitions = 256;
struct Definitions {
  Definition list[kMaxDefinitions];
  int count = 0;
};

// What a slot bound to `name` at `version` (null: unversioned reference)
// should hold: the definition of that name and version, or 0.
uintptr_t definition_for(const Definitions& d, const char* name, const char* version) {
  for (int i = 0; i < d.count; ++i) {
    const Definition& def = d.list[i];
    if (std::strcmp(def.name, name) != 0) continue;
    if (def.version == nullptr) return def.address;
    if (version == nullptr ? !def.hidden : std::strcmp(def.version, version) == 0) return def.address;
  }
  return 0;
}

bool in_relro(const dl_phdr_info* info, uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_GNU_RELRO) continue;
    const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (address >= start && address < start + segment.p_memsz) return true;
  }
  return false;
}

void store(std::atomic<uintptr_t>* slot, uintptr_t value, bool read_only) {
  const long page = sysconf(_SC_PAGESIZE);
  void* page_start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(slot) & ~static_cast<uintptr_t>(page - 1));
  if (read_only) mprotect(page_start, static_cast<size_t>(page), PROT_READ | PROT_WRITE);
  slot->store(value, std::memory_order_release);  // one aligned store: a concurrent call sees old or new
  if (read_only) mprotect(page_start, static_cast<size_t>(page), PROT_READ);
}

bool taken(const std::atomic<uintptr_t>* slot) {
  for (int i = 0; i < g_redirected_count; ++i)
    if (g_redirected[i].slot == slot) return true;
  return false;
}

// A redirection request: which objects, and what a slot bound to a name at
// a version should hold instead (0: left alone).
struct Request {
  bool (*chosen)(const char*);
  uintptr_t (*replacement_for)(const Request&, const char* name, const char* version);
  const char* symbol;          // redirect_calls: the one name
  uintptr_t replacement;       // and what its slots hold
  const Definitions* definitions;  // redirect_calls_to_interposers
  bool to_interposers;
  int count;
};

uintptr_t one_symbol(const Request& request, const char* name, const char*) {
  return std::strcmp(name, request.symbol) == 0 ? request.replacement : 0;
}

uintptr_t interposer_of(const Request& request, const char* name, const char* version) {
  return definition_for(*request.definitions, name, version);
}

void redirect_relocations(const dl_phdr_info* info, const ObjectDynamic& o, const ElfW(Rela)* relocations,
                          size_t bytes, bool data_slots, Request& request) {
  for (size_t i = 0; relocations != nullptr && i < bytes / sizeof(ElfW(Rela)); ++i) {
    const ElfW(Rela)& r = relocations[i];
    const auto type = ELF64_R_TYPE(r.r_info);
    if (type != R_X86_64_JUMP_SLOT && !(data_slots && type == R_X86_64_GLOB_DAT)) continue;
    const auto symbol = ELF64_R_SYM(r.r_info);
    const char* version = o.versions != nullptr ? version_name(o, o.versions[symbol] & 0x7fff) : nullptr;
    const uintptr_t replacement = request.replacement_for(request, o.names + o.symbols[symbol].st_name, version);
    if (replacement == 0) continue;
    if (g_redirected_count == kMaxRedirected) return;
    auto* slot = reinterpret_cast<std::atomic<uintptr_t>*>(info->dlpi_addr + r.r_offset);
    if (slot->load(std::memory_order_acquire) == replacement) continue;  // an object redirected before
    if (request.to_interposers && taken(slot)) continue;  // the runtime's own (libunwind's close)
    const bool read_only = in_relro(info, reinterpret_cast<uintptr_t>(slot));
    g_redirected[g_redirected_count++] = {slot, slot->load(std::memory_order_acquire), replacement, read_only,
                                          request.to_interposers};
    store(slot, replacement, read_only);
    ++request.count;
  }
}

int redirect_in_object(dl_phdr_info* info, size_t, void* opaque) {
  auto& request = *static_cast<Request*>(opaque);
  if (info->dlpi_name == nullptr || !request.chosen(info->dlpi_name)) return 0;
  ObjectDynamic o;
  if (!read_dynamic(info, &o)) return 0;
  // The runtime's own redirections take both kinds of slot; the plugins'
  // interposers take the GOT's only in the C library, where no program
  // keeps the address (a pointer taken from a GOT slot while attached
  // would lead into the plugin after it is unloaded).
  const bool data_slots = !request.to_interposers || std::strstr(info->dlpi_name, "/libc.so") != nullptr;
  redirect_relocations(info, o, o.plt, o.plt_bytes, true, request);
  redirect_relocations(info, o, o.data, o.data_bytes, data_slots, request);
  return 0;
}

struct DefinitionsOf {
  uintptr_t address;  // inside the interposing object
  Definitions* into;
};

bool contains(const dl_phdr_info* info, uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && address >= start && address < start + segment.p_memsz) return true;
  }
  return false;
}

// The functions the object containing `address` exports under names not
// its own (lumen_*: its factory and its private entry points).
int collect_definitions(dl_phdr_info* info, size_t, void* opaque) {
  auto& wanted = *static_cast<DefinitionsOf*>(opaque);
  if (!contains(info, wanted.address)) return 0;
  ObjectDynamic o;
  if (!read_dynamic(info, &o)) return 1;
  const size_t count = symbol_count(o);
  for (size_t i = 1; i < count && wanted.into->count < kMaxDefinitions; ++i) {
    const ElfW(Sym)& s = o.symbols[i];
    const auto type = ELF64_ST_TYPE(s.st_info);
    const auto binding = ELF64_ST_BIND(s.st_info);
    if (s.st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_GNU_IFUNC)) continue;
    if (binding != STB_GLOBAL && binding != STB_WEAK) continue;
    const char* name = o.names + s.st_name;
    if (std::strncmp(name, "lumen_", 6) == 0) continue;
    const ElfW(Half) index = o.versions != nullptr ? o.versions[i] : 1;
    wanted.into->list[wanted.into->count++] = {name, version_name(o, index & 0x7fff), info->dlpi_addr + s.st_value,
                                               (index & 0x8000) != 0};
  }
  return 1;
}

}  // namespace

// Whether `address` lies in a segment of an object still loaded (one the
// program unloaded since may have left the slot's page to anything).
int find_address(dl_phdr_info* info, size_t, void* opaque) {
  return contains(info, *static_cast<uintptr_t*>(opaque)) ? 1 : 0;
}

int redirect_calls(bool (*chosen)(const char*), const char* symbol, void* replacement) {
  Request request{chosen, one_symbol, symbol, reinterpret_cast<uintptr_t>(replacement), nullptr, false, 0};
  dl_iterate_phdr(redirect_in_object, &request);
  return request.count;
}

int redirect_calls_to_interposers(bool (*chosen)(const char*), const void* interposers) {
  static Definitions definitions;  // not signal-safe anyway: no allocation
  definitions.count = 0;
  DefinitionsOf wanted{reinterpret_cast<uintptr_t>(interposers), &definitions};
  dl_iterate_phdr(collect_definitions, &wanted);
  if (definitions.count == 0) return 0;
  Request request{chosen, interposer_of, nullptr, 0, &definitions, true, 0};
  dl_iterate_phdr(redirect_in_object, &request);
  return request.count;
}

namespace {

void restore(const Redirected& r) {
  auto address = reinterpret_cast<uintptr_t>(r.slot);
  if (dl_iterate_phdr(find_address, &address) == 0 || r.slot->load(std::memory_order_acquire) != r.replacement)
    return;
  store(r.slot, r.original, r.read_only);
}

}  // namespace

void restore_calls_to_interposers() {
  int kept = 0;
  for (int i = g_redirected_count - 1; i >= 0; --i)
    if (g_redirected[i].to_interposers) restore(g_redirected[i]);
  for (int i = 0; i < g_redirected_count; ++i)
    if (!g_redirected[i].to_interposers) g_redirected[kept++] = g_redirected[i];
  g_redirected_count = kept;
}

void restore_redirected_calls() {
  while (g_redirected_count > 0) restore(g_redirected[--g_redirected_count]);
}

}  // namespace lumen::collector
