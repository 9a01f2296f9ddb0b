#include "program_structure.h"

#include "terminal_text.h"

#include <cstdio>
#include <filesystem>

#include "regular_file.h"

namespace lumen::analysis {

ProgramStructure::ProgramStructure() {
  objects_.push_back({"<Unknown>", "<Unknown>", "", "", 0});
  symbols_.push_back(nullptr);
  for (const char* special : {"<Total>", "<Unknown>", "<Truncated-stack>"})
    functions_.push_back({special, special, kNoObject, 0, 0, special, false, ""});
}

// The load object er_print shows generated functions in.
const char* const kDynamicCodeObject = "<dynamic code>";

ObjectId ProgramStructure::object_for(const MappedObject& mapped) {
  const auto found = object_ids_.find(mapped.path);
  if (found != object_ids_.end()) return found->second;
  if (mapped.unnamed_because.empty()) {
    const ObjectId id = object_for(mapped.path, mapped.symbol_file);
    objects_[id].built_ns = mapped.recorded.mtime_ns;
    return id;
  }
  const ObjectId id = static_cast<ObjectId>(objects_.size());
  const std::string name = std::filesystem::path(mapped.path).filename().string();
  objects_.push_back({mapped.path, name.empty() ? mapped.path : name, "", mapped.unnamed_because, mapped.recorded.mtime_ns});
  symbols_.push_back(nullptr);
  object_ids_.emplace(mapped.path, id);
  return id;
}

ObjectId ProgramStructure::object_for(const std::string& path, const std::string& symbol_file) {
  const auto found = object_ids_.find(path);
  if (found != object_ids_.end()) return found->second;
  const ObjectId id = static_cast<ObjectId>(objects_.size());
  std::string name = std::filesystem::path(path).filename().string();
  const std::string& file = symbol_file.empty() ? path : symbol_file;
  objects_.push_back({path, name.empty() ? path : name, file, "", 0});
  // The path comes from an experiment: only a regular file is opened (a
  // FIFO would block, a device never end).
  const bool readable = is_regular_file(file, Symlinks::Follow);
  symbols_.push_back(readable ? std::make_unique<ObjectSymbols>(file) : nullptr);
  // A file the experiment names that is gone leaves its functions unnamed:
  // say which, and how to keep it next time.
  if (!readable && !file.empty() && file[0] == '/')
    std::fprintf(stderr,
                 "er_print: warning: load object %s cannot be read (moved or deleted since the experiment was "
                 "recorded, and not archived): its functions are shown by address; archive it with "
                 "er_archive -A copy while it is there\n",
                 printable_text(file).c_str());
  // One that is there but is no ELF object libdwfl can read (another kind
  // of file, or a damaged one) leaves them unnamed as well.
  else if (readable && !symbols_.back()->opened())
    std::fprintf(stderr,
                 "er_print: warning: load object %s is not an ELF object or is damaged: its functions cannot be "
                 "named and are shown by address\n",
                 printable_text(file).c_str());
  object_ids_.emplace(path, id);
  return id;
}

ObjectId ProgramStructure::described_object(const std::string& name) {
  // Keyed apart from every path (no path holds a NUL): a name an
  // experiment gives is never a file to open.
  const std::string key = std::string(1, '\0') + name;
  if (const auto found = object_ids_.find(key); found != object_ids_.end()) return found->second;
  const ObjectId id = static_cast<ObjectId>(objects_.size());
  objects_.push_back({name, name, "", "", 0});
  symbols_.push_back(nullptr);
  object_ids_.emplace(key, id);
  return id;
}

FunctionId ProgramStructure::intern_function(ObjectId object, uint64_t start, uint64_t size, const std::string& mangled) {
  const auto key = std::make_pair(object, start);
  const auto found = function_ids_.find(key);
  if (found != function_ids_.end()) return found->second;
  const FunctionId id = static_cast<FunctionId>(functions_.size());
  std::string name;
  std::string symbol = mangled;
  if (mangled.empty() && !objects_[object].unnamed_because.empty()) {
    // Its file is another program's now: no address of it means anything.
    name = symbol = "<unknown> (" + objects_[object].name + ", " + objects_[object].unnamed_because + ")";
  } else if (mangled.empty()) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "<static>@0x%llx", static_cast<unsigned long long>(start));
    name = buffer;
    symbol = name + " (" + objects_[object].name + ")";
  } else {
    // Versioned dynamic symbols read "name@@GLIBC_2.34": show the name; a
    // PLT stub keeps its "@plt".
    const bool plt = mangled.size() > 4 && mangled.compare(mangled.size() - 4, 4, "@plt") == 0;
    name = plt ? demangle(mangled.substr(0, mangled.size() - 4)) + "@plt" : demangle(mangled.substr(0, mangled.find('@')));
  }
  functions_.push_back({name, symbol, object, start, size, name, false, ""});
  functions_.back().name = styled(functions_.back());
  function_ids_.emplace(key, id);
  return id;
}

std::string short_name(const std::string& name) {
  // "ns::f(int, char) const" -> "ns::f": cut at the '(' that opens the
  // parameters (the last top-level one).
  if (name.empty() || name[0] == '<') return name;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

std::string unscoped_name(const std::string& name) {
  const std::string shortened = short_name(name);
  if (shortened.empty() || shortened[0] == '<') return shortened;
  // The last "::" outside template arguments ("std::vector<a::b>::size").
  size_t cut = 0;
  int depth = 0;
  for (size_t i = 0; i + 1 < shortened.size(); ++i) {
    if (shortened[i] == '<') ++depth;
    if (shortened[i] == '>' && depth > 0) --depth;
    if (depth == 0 && shortened[i] == ':' && shortened[i + 1] == ':') cut = i + 2;
  }
  return shortened.substr(cut);
}

bool is_named(const Function& f, const std::string& name) {
  if (name.empty()) return false;
  return f.name == name || f.long_name == name || f.mangled_name == name || short_name(f.long_name) == name ||
         unscoped_name(f.long_name) == name;
}

std::string ProgramStructure::styled(const Function& f, bool beside_object) const {
  std::string name = f.long_name;
  const bool by_address = f.long_name.rfind("<static>@", 0) == 0;
  switch (name_style_) {
    case NameStyle::Long: break;
    case NameStyle::Short: name = short_name(f.long_name); break;
    case NameStyle::Mangled:
      if (!by_address) name = f.mangled_name.substr(0, f.mangled_name.find('@'));
      break;
  }
  // A function named by its address says which object's it is, but not
  // where its object is shown beside it.
  if (by_address && !beside_object && f.object != kNoObject) name += " (" + objects_[f.object].name + ")";
  if (object_names_shown_ && f.object != kNoObject) name += " [<" + objects_[f.object].name + ">]";
  return name;
}

void ProgramStructure::set_name_style(NameStyle style) {
  name_style_ = style;
  for (Function& f : functions_) f.name = styled(f);
}

void ProgramStructure::show_object_names(bool shown) {
  object_names_shown_ = shown;
  for (Function& f : functions_) f.name = styled(f);
}

FunctionId ProgramStructure::artificial_function(const std::string& name) {
  const auto [it, inserted] = artificial_ids_.try_emplace(name, static_cast<FunctionId>(functions_.size()));
  if (inserted) {
    Function f;
    f.name = name;
    f.mangled_name = name;
    f.long_name = name;  // what -name long and short show
    functions_.push_back(f);
  }
  return it->second;
}

std::optional<std::string> ProgramStructure::data_symbol(const LoadObjectMap& map, uint64_t address) {
  const MappedObject* mapped = map.find(address, map.latest_epoch());
  if (mapped == nullptr) return std::nullopt;
  const ObjectId object = object_for(*mapped);
  if (symbols_[object] == nullptr) return std::nullopt;
  const auto hit = symbols_[object]->lookup(address - mapped->load_bias);
  if (!hit || !hit->from_symbol_table) return std::nullopt;
  return demangle(hit->name.substr(0, hit->name.find('@')));
}

std::optional<CodeAddress> ProgramStructure::code_address(const LoadObjectMap& map, uint32_t epoch, uint64_t pc,
                                                          bool is_return_address) {
  const MappedObject* mapped = map.find(pc, epoch);
  if (mapped == nullptr) return std::nullopt;
  return CodeAddress{object_for(*mapped), pc - mapped->load_bias - (is_return_address ? 1 : 0)};
}

FunctionId ProgramStructure::inlined_function(ObjectId object, const InlinedCall& call) {
  auto [it, inserted] = inline_ids_.try_emplace({object, call.name}, kUnknownFunction);
  if (!inserted) return it->second;
  // The function's out-of-line copy, where the object has one, is the same
  // function: its time inlined and called add up in one row.
  if (const auto copy = symbols_[object]->function_named(call.name))
    return it->second = intern_function(object, copy->start, copy->size, copy->name);
  it->second = static_cast<FunctionId>(functions_.size());
  const std::string plain = demangle(call.name);
  functions_.push_back({plain, call.name, object, 0, 0, plain, true, call.defining_file});
  functions_.back().name = styled(functions_.back());
  return it->second;
}

const std::vector<InlinedFrame>& ProgramStructure::inlined_at(const LoadObjectMap& map, uint32_t epoch, uint64_t pc,
                                                              bool is_return_address) {
  const MappedObject* mapped = map.find(pc, epoch);
  if (mapped == nullptr) return inline_chains_[0];
  const uint64_t key = pc ^ (is_return_address ? 1ull << 63 : 0);
  auto& cache = inline_cache_[mapped];
  if (const auto hit = cache.find(key); hit != cache.end()) return inline_chains_[hit->second];
  const ObjectId object = object_for(*mapped);
  std::vector<InlinedFrame> chain;
  if (symbols_[object] != nullptr)
    for (const InlinedCall& call :
         symbols_[object]->inline_chain(pc - mapped->load_bias - (is_return_address ? 1 : 0)))
      chain.push_back({inlined_function(object, call), call.call_site});
  uint32_t id = 0;
  if (!chain.empty()) {
    const auto [found, inserted] = inline_chain_ids_.try_emplace(chain, static_cast<uint32_t>(inline_chains_.size()));
    if (inserted) inline_chains_.push_back(std::move(chain));
    id = found->second;
  }
  cache.emplace(key, id);
  return inline_chains_[id];
}

std::optional<std::string> ProgramStructure::source_file_of(FunctionId id) const {
  const Function& f = functions_[id];
  if (f.inlined_only) return f.defining_file.empty() ? std::nullopt : std::optional<std::string>(f.defining_file);
  const ObjectSymbols* symbols = id > kTruncatedFunction ? symbols_[f.object].get() : nullptr;
  if (symbols == nullptr) return std::nullopt;
  if (auto file = symbols->defining_file(f.start)) return file;
  if (const auto line = symbols->source_line(f.start)) return line->file;
  return std::nullopt;
}

std::pair<FunctionId, uint64_t> ProgramStructure::traced_function(const LoadObjectMap& map, uint32_t epoch,
                                                                  const std::string& name) {
  const auto key = std::make_tuple(&map, epoch, name);
  if (const auto hit = traced_ids_.find(key); hit != traced_ids_.end()) return hit->second;
  std::pair<FunctionId, uint64_t> found{artificial_function(name), 0};
  for (const MappedObject& mapped : map.objects()) {
    if (map.find(mapped.start, epoch) != &mapped) continue;  // not mapped then
    const ObjectSymbols* symbols = symbols_[object_for(mapped)].get();
    if (symbols == nullptr) continue;
    const auto address = symbols->exported_function(name);
    // The collector's objects (its runtime, every plugin's collector half)
    // define the interposers: the call went on past them.
    if (!address || symbols->exported_function("lumen_collector_plugin") || symbols->exported_function("lumen_api_sample"))
      continue;
    const uint64_t pc = *address + mapped.load_bias;
    found = {function_at(map, epoch, pc, false), pc};
    // Aliases share an address (malloc, __libc_malloc): the function is
    // named as the program called it.
    Function& function = functions_[found.first];
    if (found.first != kUnknownFunction && function.start + mapped.load_bias == pc && function.mangled_name != name) {
      function.mangled_name = function.long_name = name;
      function.name = styled(function);
    }
    break;
  }
  traced_ids_.emplace(key, found);
  return found;
}

FunctionId ProgramStructure::function_at(const LoadObjectMap& map, uint32_t epoch, uint64_t pc,
                                         bool is_return_address) {
  const MappedObject* mapped = map.find(pc, epoch);
  if (mapped == nullptr) {
    // Generated code the program described (collector_func_load), or the
    // kernel's (er_kernel).
    auto& cache = described_pc_cache_[&map][is_return_address ? 1 : 0];
    if (const auto hit = cache.find(pc); hit != cache.end()) return hit->second;
    const DynamicFunction* generated = map.find_dynamic(pc - (is_return_address ? 1 : 0));
    const FunctionId id =
        generated == nullptr
            ? kUnknownFunction
            : intern_function(described_object(generated->object.empty() ? kDynamicCodeObject : generated->object),
                              generated->start, generated->end - generated->start, generated->name);
    cache.emplace(pc, id);
    return id;
  }
  auto& cache = pc_cache_[mapped];
  const uint64_t key = pc ^ (is_return_address ? 1ull << 63 : 0);
  if (const auto hit = cache.find(key); hit != cache.end()) return hit->second;
  const ObjectId object = object_for(*mapped);
  const uint64_t address = pc - mapped->load_bias - (is_return_address ? 1 : 0);
  FunctionId id = kUnknownFunction;
  if (symbols_[object] != nullptr) {
    if (const auto hit = symbols_[object]->lookup(address)) id = intern_function(object, hit->start, hit->size, hit->name);
  }
  if (id == kUnknownFunction) {
    // Mapped, but neither a symbol nor CFI covers it: one <static> per object.
    id = intern_function(object, 0, 0, "");
  }
  cache.emplace(key, id);
  return id;
}

}  // namespace lumen::analysis
