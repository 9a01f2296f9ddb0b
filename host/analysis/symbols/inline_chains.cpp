#include "inline_chains.h"

#include <dwarf.h>

#include <cstdlib>

namespace lumen::analysis {

namespace {

size_t bytes_of(const std::vector<std::string>& chain) {
  size_t bytes = sizeof(chain) + 64;  // and the map's node
  for (const std::string& name : chain) bytes += sizeof(name) + name.capacity();
  return bytes;
}

}  // namespace

std::vector<std::string> inline_chain_from_libdw(Dwarf_Die unit, uint64_t address) {
  std::vector<std::string> chain;
  Dwarf_Die* scopes = nullptr;
  const int count = dwarf_getscopes(&unit, address, &scopes);
  for (int i = 0; i < count; ++i) {
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
    Dwarf_Attribute attribute;
    const char* linkage = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &attribute));
    const char* name = linkage != nullptr ? linkage : dwarf_diename(&scopes[i]);
    chain.emplace_back(name != nullptr ? name : "<inlined>");
  }
  std::free(scopes);
  return chain;
}

std::vector<std::string> InlineChains::at(Dwarf_Die die, uint64_t address) {
  Unit& found = unit(die);
  if (!found.scopes.regular()) return inline_chain_from_libdw(die, address);
  const std::optional<uint32_t> inlined = found.scopes.innermost_inlined(address);
  if (!inlined) return {};
  const auto known = found.chains.find(*inlined);
  if (known != found.chains.end()) return known->second;
  // Every address whose path meets this instance innermost has its answer.
  const std::vector<std::string>& chain =
      found.chains.emplace(*inlined, inline_chain_from_libdw(die, address)).first->second;
  bytes_ += bytes_of(chain);
  std::vector<std::string> answer = chain;
  drop_least_recent(dwarf_dieoffset(&die));
  return answer;
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
