// Functions and load objects as er_print names them, and the mapping of a
// PC (at a point in time) to them. Each distinct PC is symbolized once; each
// object file is opened once, by one persistent elfutils session.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "loadobject_map.h"
#include "object_symbols.h"

namespace lumen::analysis {

using FunctionId = uint32_t;
using ObjectId = uint32_t;

// Special functions the Performance Analyzer defines.
inline constexpr FunctionId kTotalFunction = 0;      // <Total>
inline constexpr FunctionId kUnknownFunction = 1;    // <Unknown>
inline constexpr FunctionId kTruncatedFunction = 2;  // <Truncated-stack>
inline constexpr ObjectId kNoObject = 0;              // <Unknown> load object

// How functions are named (-name): demangled with parameters, without
// them, or as the symbol table has it.
enum class NameStyle { Long, Short, Mangled };

struct Function {
  std::string name;            // as -name asks (demangled by default)
  std::string mangled_name;
  ObjectId object = kNoObject;
  uint64_t start = 0;          // file address of its entry
  uint64_t size = 0;           // bytes of code; 0 when unknown
  std::string long_name;       // demangled, with parameters
  bool inlined_only = false;   // known only as code inlined into others: no start, no size
  std::string defining_file;   // inlined_only: the source file holding its definition ("" unknown)
};

// A function inlined at a PC, and where the function around it inlined it.
struct InlinedFrame {
  FunctionId function = kUnknownFunction;
  SourceLine call_site;  // line 0 when DWARF does not say
  auto operator<=>(const InlinedFrame&) const = default;
};

// A PC as the analysis places it: the object and the file address of the
// instruction that ran (a return address is moved back into its call).
struct CodeAddress {
  ObjectId object = kNoObject;
  uint64_t address = 0;
};

struct LoadObject {
  std::string path;
  std::string name;            // file name only
  std::string file;            // where its contents are read: `path`, an archived copy, the experiment's vdso.so
  std::string unnamed_because; // why its code has no names ("changed since recording"); empty when it has
  int64_t built_ns = 0;        // its file's modification time when recorded; 0: unknown
};

// "ns::f(int) const" -> "ns::f".
std::string short_name(const std::string& demangled);
// "ns::C<int>::f(int) const" -> "f": the name without its scope (namespace,
// class, Fortran module) or parameters.
std::string unscoped_name(const std::string& demangled);

// Whether `name`, as a user types it (-source, -fsingle, -filters), names
// `f`: as shown, demangled with or without parameters, mangled, or without
// its scope ("lib_work" for shlib::lib_work, "smooth" for kernels::smooth).
bool is_named(const Function& f, const std::string& name);

class ProgramStructure {
 public:
  ProgramStructure();

  // The function holding `pc` as resolved against `map` at `epoch`.
  // `is_return_address`: the PC follows a call; the call is what ran.
  FunctionId function_at(const LoadObjectMap& map, uint32_t epoch, uint64_t pc, bool is_return_address);

  // The data symbol (a global or static variable) holding `address` as
  // mapped at the end of the experiment, demangled; empty when none does.
  std::optional<std::string> data_symbol(const LoadObjectMap& map, uint64_t address);

  // The function a traced call of `name` reached, as mapped at `epoch`:
  // the first object, other than the collector's, exporting a function of
  // that name (the artificial function `name` when none does), and the
  // address it is mapped at (0 for an artificial one).
  std::pair<FunctionId, uint64_t> traced_function(const LoadObjectMap& map, uint32_t epoch, const std::string& name);

  // The artificial function of this name (collector_final_counters, ...),
  // named by a decoder for counts that no recorded stack explains.
  FunctionId artificial_function(const std::string& name);

  // The one function that stands for every function of `object` when its
  // functions are hidden (-object_hide): "<libc.so.6>", in that object.
  FunctionId object_function(ObjectId object) {
    return intern_function(object, UINT64_MAX, 0, "<" + objects_[object].name + ">");
  }

  // The object and file address of `pc`; nullopt when no object held it.
  std::optional<CodeAddress> code_address(const LoadObjectMap& map, uint32_t epoch, uint64_t pc,
                                          bool is_return_address);
  // The functions inlined at `pc`, innermost first, each instance that
  // encloses the innermost; empty without DWARF inline information. An
  // inlined function is the function of the object's symbol of its name
  // where there is one (its out-of-line copy), else a function of its own.
  // Valid while this structure is.
  const std::vector<InlinedFrame>& inlined_at(const LoadObjectMap& map, uint32_t epoch, uint64_t pc,
                                              bool is_return_address);
  // The source file holding the definition of `function` (DWARF's
  // DW_AT_decl_file), else that of its first instruction's line.
  std::optional<std::string> source_file_of(FunctionId function) const;
  // Renames every function (and those found later) in `style`.
  void set_name_style(NameStyle style);
  NameStyle name_style() const { return name_style_; }
  // With `shown`, a function of a load object is named "f [<libc.so.6>]"
  // (-name ...:soname), so functions of one name in two objects read apart.
  void show_object_names(bool shown);

  // The id of the object at `path`, when a PC has been placed in it.
  std::optional<ObjectId> find_object(const std::string& path) const {
    const auto it = object_ids_.find(path);
    return it == object_ids_.end() ? std::nullopt : std::optional<ObjectId>(it->second);
  }
  // The symbols of an object, or nullptr when its file could not be opened.
  const ObjectSymbols* symbols(ObjectId id) const { return symbols_[id].get(); }

  const Function& function(FunctionId id) const { return functions_[id]; }
  // Its name where its load object is shown beside it (a stack's frame, a
  // disassembly's heading): a function named by its address is
  // "<static>@0x1f0", its name in lists "<static>@0x1f0 (libx.so)".
  std::string name_beside_object(FunctionId id) const { return styled(functions_[id], true); }
  const LoadObject& object(ObjectId id) const { return objects_[id]; }
  size_t function_count() const { return functions_.size(); }
  size_t object_count() const { return objects_.size(); }

 private:
  // `symbol_file`: where its symbols are read (an archived copy); `path` when empty.
  ObjectId object_for(const std::string& path, const std::string& symbol_file = "");
  // The mapped object's, read where the map chose (none, saying why, when
  // its file changed since recording and was not archived).
  ObjectId object_for(const MappedObject& mapped);
  // An object only named by the experiment (generated code, the kernel and
  // its modules): no file is read for it.
  ObjectId described_object(const std::string& name);
  FunctionId intern_function(ObjectId object, uint64_t start, uint64_t size, const std::string& mangled);

  std::string styled(const Function& f, bool beside_object = false) const;
  FunctionId inlined_function(ObjectId object, const InlinedCall& call);
  std::map<std::pair<ObjectId, std::string>, FunctionId> inline_ids_;
  // Chains interned (every PC of an inlined instance has the same one);
  // [0] is the empty chain. A deque: references to chains stay valid.
  std::deque<std::vector<InlinedFrame>> inline_chains_{1};
  std::map<std::vector<InlinedFrame>, uint32_t> inline_chain_ids_;
  std::unordered_map<const MappedObject*, std::unordered_map<uint64_t, uint32_t>> inline_cache_;

  NameStyle name_style_ = NameStyle::Long;
  bool object_names_shown_ = false;
  std::vector<Function> functions_;
  std::vector<LoadObject> objects_;
  std::unordered_map<std::string, ObjectId> object_ids_;
  std::vector<std::unique_ptr<ObjectSymbols>> symbols_;  // by ObjectId
  std::map<std::pair<ObjectId, uint64_t>, FunctionId> function_ids_;
  std::map<std::string, FunctionId> artificial_ids_;
  std::map<std::tuple<const LoadObjectMap*, uint32_t, std::string>, std::pair<FunctionId, uint64_t>> traced_ids_;
  std::unordered_map<const MappedObject*, std::unordered_map<uint64_t, FunctionId>> pc_cache_;
  // Described code's PCs (an er_kernel process's kernel frames: thousands
  // of described functions, each searched for once per PC).
  // [leaf, return address] apart: described PCs use every bit.
  std::unordered_map<const LoadObjectMap*, std::array<std::unordered_map<uint64_t, FunctionId>, 2>> described_pc_cache_;
};

}  // namespace lumen::analysis
