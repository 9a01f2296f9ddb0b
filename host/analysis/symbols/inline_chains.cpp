#include "inline_chains.h"

#include <dwarf.h>

#include <cstdint>
#include <cstdlib>

namespace lumen::analysis {

namespace {

size_t bytes_of(const InlineChain& chain) {
  size_t bytes = sizeof(chain) + 64;  // and the map's node
  for (const InlinedInstance& instance : chain) bytes += sizeof(instance) + instance.name.capacity();
  return bytes;
}

// The file `index` of the line table of the unit holding `die`.
const char* unit_file(Dwarf_Die* die, Dwarf_Word index) {
  Dwarf_Die unit;
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_diecu(die, &unit, nullptr, nullptr) == nullptr || dwarf_getsrcfiles(&unit, &files, &count) != 0 ||
      index >= count)
    return nullptr;
  return dwarf_filesrc(files, index, nullptr, nullptr);
}

// The inlined instances among `scopes` (innermost first), read from DWARF.
InlineChain chain_of(const std::vector<Dwarf_Die>& scopes, Dwarf_Die unit) {
  InlineChain chain;
  Dwarf_Attribute attribute;
  const char* compile_dir = dwarf_formstring(dwarf_attr(&unit, DW_AT_comp_dir, &attribute));
  for (Dwarf_Die scope : scopes) {
    if (dwarf_tag(&scope) != DW_TAG_inlined_subroutine) continue;
    InlinedInstance instance;
    const char* linkage = dwarf_formstring(dwarf_attr_integrate(&scope, DW_AT_linkage_name, &attribute));
    const char* name = linkage != nullptr ? linkage : dwarf_diename(&scope);
    instance.name = name != nullptr ? name : "<inlined>";
    Dwarf_Word value = 0;
    if (dwarf_formudata(dwarf_attr(&scope, DW_AT_call_file, &attribute), &value) == 0)
      instance.call_file = unit_file(&scope, value);
    if (dwarf_formudata(dwarf_attr(&scope, DW_AT_call_line, &attribute), &value) == 0 && value <= INT32_MAX)
      instance.call_line = static_cast<int>(value);
    instance.decl_file = dwarf_decl_file(&scope);
    instance.compile_dir = compile_dir;
    chain.push_back(std::move(instance));
  }
  return chain;
}

// The file defining the innermost function not inlined among `scopes`.
const char* defining_file_of(const std::vector<Dwarf_Die>& scopes) {
  for (Dwarf_Die scope : scopes)
    if (dwarf_tag(&scope) == DW_TAG_subprogram) return dwarf_decl_file(&scope);
  return nullptr;
}

}  // namespace

InlineChain inline_chain_by_walk(Dwarf_Die unit, uint64_t address) {
  return chain_of(scopes_by_walk(unit, address), unit);
}

const char* defining_file_by_walk(Dwarf_Die unit, uint64_t address) {
  return defining_file_of(scopes_by_walk(unit, address));
}

InlineChain InlineChains::at(Dwarf_Die die, uint64_t address) {
  Unit& found = unit(die);
  if (!found.scopes.regular()) return inline_chain_by_walk(die, address);
  std::optional<uint32_t> inlined = found.scopes.innermost(address);
  while (inlined && found.scopes.tag(*inlined) != DW_TAG_inlined_subroutine) inlined = found.scopes.enclosing(*inlined);
  if (!inlined) return {};
  const auto known = found.chains.find(*inlined);
  if (known != found.chains.end()) return known->second;
  // Every address whose path meets this instance innermost has its answer.
  std::vector<Dwarf_Die> scopes;
  for (std::optional<uint32_t> scope = inlined; scope; scope = found.scopes.enclosing(*scope))
    scopes.push_back(found.scopes.die(*scope));
  const InlineChain& chain = found.chains.emplace(*inlined, chain_of(scopes, die)).first->second;
  bytes_ += bytes_of(chain);
  InlineChain answer = chain;
  drop_least_recent(dwarf_dieoffset(&die));
  return answer;
}

const char* InlineChains::defining_file(Dwarf_Die die, uint64_t address) {
  const UnitScopes& scopes = unit(die).scopes;
  if (!scopes.regular()) return defining_file_by_walk(die, address);
  for (std::optional<uint32_t> scope = scopes.innermost(address); scope; scope = scopes.enclosing(*scope))
    if (scopes.tag(*scope) == DW_TAG_subprogram) {
      Dwarf_Die subprogram = scopes.die(*scope);
      return dwarf_decl_file(&subprogram);
    }
  return nullptr;
}

InlineChains::Unit& InlineChains::unit(Dwarf_Die die) {
  const uint64_t offset = dwarf_dieoffset(&die);
  auto found = units_.find(offset);
  if (found != units_.end()) {
    recent_.splice(recent_.begin(), recent_, found->second.recent);
    return found->second;
  }
  found = units_.try_emplace(offset, die).first;
  recent_.push_front(offset);
  found->second.recent = recent_.begin();
  bytes_ += found->second.scopes.bytes();
  drop_least_recent(offset);
  return found->second;
}

void InlineChains::drop_least_recent(uint64_t keep) {
  while (bytes_ > budget_ && !recent_.empty() && recent_.back() != keep) {
    const auto dropped = units_.find(recent_.back());
    bytes_ -= dropped->second.scopes.bytes();
    for (const auto& [instance, chain] : dropped->second.chains) bytes_ -= bytes_of(chain);
    units_.erase(dropped);
    recent_.pop_back();
  }
}

}  // namespace lumen::analysis
