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
  bool read_only;  // in the object's RELRO pages: made writable for the store
};

constexpr int kMaxRedirected = 256;
Redirected g_redirected[kMaxRedirected];
int g_redirected_count = 0;

struct Request {
  bool (*chosen)(const char*);
  const char* symbol;
  uintptr_t replacement;
  int count;
};

// Where ld.so relocated a dynamic entry's address (some it leaves as the
// file's, relative to the load base).
template <typename T>
T* dynamic_address(const dl_phdr_info* info, ElfW(Addr) value) {
  return reinterpret_cast<T*>(value < info->dlpi_addr ? info->dlpi_addr + value : value);
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

void redirect_relocations(const dl_phdr_info* info, const ElfW(Rela)* relocations, size_t bytes,
                          const ElfW(Sym)* symbols, const char* names, Request& request) {
  for (size_t i = 0; relocations != nullptr && i < bytes / sizeof(ElfW(Rela)); ++i) {
    const ElfW(Rela)& r = relocations[i];
    const auto type = ELF64_R_TYPE(r.r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    if (std::strcmp(names + symbols[ELF64_R_SYM(r.r_info)].st_name, request.symbol) != 0) continue;
    if (g_redirected_count == kMaxRedirected) return;
    auto* slot = reinterpret_cast<std::atomic<uintptr_t>*>(info->dlpi_addr + r.r_offset);
    if (slot->load(std::memory_order_acquire) == request.replacement) continue;  // an object redirected before
    const bool read_only = in_relro(info, reinterpret_cast<uintptr_t>(slot));
    g_redirected[g_redirected_count++] = {slot, slot->load(std::memory_order_acquire), request.replacement, read_only};
    store(slot, request.replacement, read_only);
    ++request.count;
  }
}

int redirect_in_object(dl_phdr_info* info, size_t, void* opaque) {
  auto& request = *static_cast<Request*>(opaque);
  if (info->dlpi_name == nullptr || !request.chosen(info->dlpi_name)) return 0;
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (dynamic == nullptr) return 0;
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Rela)* plt = nullptr;
  const ElfW(Rela)* data = nullptr;
  size_t plt_bytes = 0, data_bytes = 0;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: symbols = dynamic_address<const ElfW(Sym)>(info, d->d_un.d_ptr); break;
      case DT_STRTAB: names = dynamic_address<const char>(info, d->d_un.d_ptr); break;
      case DT_JMPREL: plt = dynamic_address<const ElfW(Rela)>(info, d->d_un.d_ptr); break;
      case DT_PLTRELSZ: plt_bytes = d->d_un.d_val; break;
      case DT_RELA: data = dynamic_address<const ElfW(Rela)>(info, d->d_un.d_ptr); break;
      case DT_RELASZ: data_bytes = d->d_un.d_val; break;
      default: break;
    }
  }
  if (symbols == nullptr || names == nullptr) return 0;
  redirect_relocations(info, plt, plt_bytes, symbols, names, request);
  redirect_relocations(info, data, data_bytes, symbols, names, request);
  return 0;
}

}  // namespace

// Whether `address` lies in a segment of an object still loaded (one the
// program unloaded since may have left the slot's page to anything).
int find_address(dl_phdr_info* info, size_t, void* opaque) {
  const auto address = *static_cast<uintptr_t*>(opaque);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && address >= start && address < start + segment.p_memsz) return 1;
  }
  return 0;
}

int redirect_calls(bool (*chosen)(const char*), const char* symbol, void* replacement) {
  Request request{chosen, symbol, reinterpret_cast<uintptr_t>(replacement), 0};
  dl_iterate_phdr(redirect_in_object, &request);
  return request.count;
}

void restore_redirected_calls() {
  while (g_redirected_count > 0) {
    const Redirected& r = g_redirected[--g_redirected_count];
    auto address = reinterpret_cast<uintptr_t>(r.slot);
    if (dl_iterate_phdr(find_address, &address) == 0 || r.slot->load(std::memory_order_acquire) != r.replacement)
      continue;
    store(r.slot, r.original, r.read_only);
  }
}

}  // namespace lumen::collector
