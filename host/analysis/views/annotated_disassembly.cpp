#include <capstone/capstone.h>
#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <map>
#include <stdexcept>

#include "annotated_code.h"
#include "annotation_support.h"
#include "hex_text.h"
#include "metric_cells.h"
#include "metric_sum.h"

namespace lumen::analysis {

namespace {

// A capstone handle for the object's machine, closed on scope exit.
class Disassembler {
 public:
  explicit Disassembler(int machine) {
    cs_arch arch;
    cs_mode mode;
    switch (machine) {
      case EM_X86_64: arch = CS_ARCH_X86; mode = CS_MODE_64; break;
      case EM_386: arch = CS_ARCH_X86; mode = CS_MODE_32; break;
      case EM_AARCH64: arch = CS_ARCH_ARM64; mode = CS_MODE_LITTLE_ENDIAN; break;
      default: throw std::runtime_error("no disassembler for ELF machine " + std::to_string(machine));
    }
    if (cs_open(arch, mode, &handle_) != CS_ERR_OK) throw std::runtime_error("capstone could not start");
  }
  ~Disassembler() { cs_close(&handle_); }
  Disassembler(const Disassembler&) = delete;
  Disassembler& operator=(const Disassembler&) = delete;
  csh handle() const { return handle_; }
  // Bytes that are no instruction (data in generated code) become ".byte"
  // rows, and the listing goes on after them.
  void skip_data() { cs_option(handle_, CS_OPT_SKIPDATA, CS_OPT_ON); }

 private:
  csh handle_ = 0;
};

// Source files read once per view; those found outside the roots are
// kept to be named (found_outside()).
class SourceText {
 public:
  SourceText(const SourcePaths& paths, const std::vector<std::filesystem::path>& dirs,
             std::vector<std::filesystem::path> roots)
      : paths_(paths), dirs_(dirs), roots_(std::move(roots)) {}
  std::string line(const std::string& file, int n) {
    auto [it, inserted] = files_.try_emplace(file);
    if (inserted)
      if (const auto found = paths_.locate(file, dirs_, roots_)) {
        it->second = source_file_lines(found->path);
        if (found->outside) outside_.push_back(*found);
      }
    return n >= 1 && n <= static_cast<int>(it->second.size()) ? it->second[n - 1] : "";
  }
  // The headings of the files found outside the roots since the last call.
  std::vector<std::string> found_outside() {
    std::vector<std::string> headings;
    for (const FoundSource& found : outside_) headings.push_back(source_file_heading(found, roots_));
    outside_.clear();
    return headings;
  }

 private:
  const SourcePaths& paths_;
  const std::vector<std::filesystem::path>& dirs_;
  const std::vector<std::filesystem::path> roots_;
  std::map<std::string, std::vector<std::string>> files_;
  std::vector<FoundSource> outside_;
};

// Below a function's heading (at `heading`), a heading for each source file
// its lines were read from outside the roots.
void add_outside_headings(ViewTable& table, size_t heading, SourceText& sources, std::vector<size_t>& outside) {
  size_t at = heading + 1;
  for (const std::string& name : sources.found_outside()) {
    ViewRow row;
    row.name = name;
    row.values.assign(table.columns.size(), 0.0);
    row.fields = {{"kind", "file"}, {"address", ""}, {"line", ""}};
    for (size_t& o : outside)
      if (o >= at) ++o;
    outside.push_back(at);
    table.rows.insert(table.rows.begin() + static_cast<std::ptrdiff_t>(at++), std::move(row));
  }
}

// The functions the target stands for: by name, or those defined in a
// source file of that name.
std::vector<FunctionId> functions_for(const std::string& target, size_t which, const StackProfile& profile,
                                      const ProgramStructure& structure) {
  std::vector<FunctionId> ids = annotated_functions_named(profile, structure, target, which);
  if (!ids.empty() || which != 0) return ids;
  for (const auto& [id, metrics] : profile.functions().nodes()) {
    if (id <= kTruncatedFunction || structure.function(id).inlined_only) continue;
    const auto defined_in = structure.source_file_of(id);
    if (!defined_in) continue;
    const std::string& file = *defined_in;
    if (file == target || (file.size() > target.size() && file.compare(file.size() - target.size(), target.size(), target) == 0 &&
                           file[file.size() - target.size() - 1] == '/'))
      ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end(), [&](FunctionId a, FunctionId b) { return structure.function(a).start < structure.function(b).start; });
  return ids;
}

// The rows of a function of described code (a Java method's bytecode): the
// instructions its decoder listed, each with the metrics of its addresses
// (up to the next one's), and its source lines between them.
void add_described_rows(ViewTable& table, const DescribedCode& described, const Function& f,
                        const std::string& object_name, const CodeProfile& code,
                        const StackProfile& profile, const MetricRegistry& registry, const ViewRequest& request,
                        SourceText& sources, const SortKey& hot, std::vector<double>& heat) {
  int current = 0;
  for (size_t i = 0; i < described.instructions.size(); ++i) {
    const auto& [address, text] = described.instructions[i];
    const uint64_t next = i + 1 < described.instructions.size() ? described.instructions[i + 1].first : described.end;
    const int line = described.source_file.empty() ? 0 : described.line_at(address);
    if (line > 0 && line != current) {
      current = line;
      const auto metrics = code.lines().find(LineKey{described.source_file, line});
      ViewRow row;
      row.name = "<line " + std::to_string(line) + "> " + sources.line(described.source_file, line);
      const Values* e = metrics == code.lines().end() ? nullptr : &metrics->second.exclusive;
      const Values* in = metrics == code.lines().end() ? nullptr : &metrics->second.inclusive;
      row.values = row_values(request.metrics, registry, e, in, code.total());
      row.fields = {{"kind", "source"}, {"address", ""}, {"line", std::to_string(line)}};
      row.marker = "   ";
      table.rows.push_back(std::move(row));
      heat.push_back(-1);
    }
    Values exclusive(profile.metric_count(), 0), inclusive(profile.metric_count(), 0);
    const auto end = code.addresses().lower_bound({f.object, next});
    for (auto it = code.addresses().lower_bound({f.object, address}); it != end; ++it)
      for (size_t m = 0; m < exclusive.size(); ++m) {
        if (!it->second.exclusive.empty()) add_saturating(exclusive[m], it->second.exclusive[m]);
        if (!it->second.inclusive.empty()) add_saturating(inclusive[m], it->second.inclusive[m]);
      }
    ViewRow row;
    row.name = text;
    row.load_object = object_name;
    row.values = row_values(request.metrics, registry, &exclusive, &inclusive, code.total());
    row.fields = {{"kind", "instruction"}, {"address", hex(address)}, {"line", line > 0 ? std::to_string(line) : ""}};
    row.marker = "   ";
    table.rows.push_back(std::move(row));
    heat.push_back(sort_value_of(hot, registry, &exclusive, &inclusive));
  }
}

// A stretch of machine code to list: its bytes at their addresses, where
// its metrics are kept, and what is known of its lines, the targets of
// its calls and notes on its instructions.
struct MachineCode {
  const std::vector<uint8_t>& bytes;
  uint64_t address = 0;
  int machine = 0;  // ELF e_machine
  ObjectId object = kNoObject;
  std::string object_name;
  std::function<std::optional<LineKey>(uint64_t)> line_of;
  std::function<std::string(uint64_t)> call_target;  // "" when unknown
  std::function<std::string(uint64_t)> note_of;      // "" when none
  bool says_undecoded = false;  // data bytes listed as such, not ending the listing
};

// The instructions of `machine_code`, each with the metrics of its
// addresses, and its source lines above the instructions that compile them.
void add_machine_rows(ViewTable& table, const MachineCode& machine_code, const CodeProfile& code,
                      const StackProfile& profile, const MetricRegistry& registry, const ViewRequest& request,
                      SourceText& sources, const SortKey& hot, std::vector<double>& heat) {
  Disassembler disassembler(machine_code.machine);
  if (machine_code.says_undecoded) disassembler.skip_data();
  cs_insn* insns = nullptr;
  const size_t count = cs_disasm(disassembler.handle(), machine_code.bytes.data(), machine_code.bytes.size(),
                                 machine_code.address, 0, &insns);
  const ObjectId object = machine_code.object;
  std::optional<LineKey> current;
  for (size_t i = 0; i < count; ++i) {
    const cs_insn& insn = insns[i];
    if (const auto key = machine_code.line_of ? machine_code.line_of(insn.address) : std::nullopt) {
      if (!current || *current != *key) {
        // A line of another file than the last (code inlined from a
        // header, and back) names its file.
        const bool same_file = current && current->file == key->file;
        current = *key;
        const auto metrics = code.lines().find(*key);
        ViewRow row;
        row.name = "<line " + std::to_string(key->line) + (same_file ? "" : " in " + key->file) + "> " +
                   sources.line(key->file, key->line);
        const Values* e = metrics == code.lines().end() ? nullptr : &metrics->second.exclusive;
        const Values* in = metrics == code.lines().end() ? nullptr : &metrics->second.inclusive;
        row.values = row_values(request.metrics, registry, e, in, code.total());
        row.fields = {{"kind", "source"}, {"address", ""}, {"line", std::to_string(key->line)}};
        row.marker = "   ";
        table.rows.push_back(std::move(row));
        heat.push_back(-1);
      }
    }
    // Every sampled address inside the instruction (a return address was
    // moved back into its call) belongs to it.
    Values exclusive(profile.metric_count(), 0), inclusive(profile.metric_count(), 0);
    const auto end = code.addresses().lower_bound({object, insn.address + insn.size});
    for (auto it = code.addresses().lower_bound({object, insn.address}); it != end; ++it)
      for (size_t m = 0; m < exclusive.size(); ++m) {
        if (!it->second.exclusive.empty()) add_saturating(exclusive[m], it->second.exclusive[m]);
        if (!it->second.inclusive.empty()) add_saturating(inclusive[m], it->second.inclusive[m]);
      }
    ViewRow row;
    row.name = hex(insn.address) + ":  " + insn.mnemonic + (insn.op_str[0] ? std::string(" ") + insn.op_str : "");
    // A direct call or jump names its target ("call 0x1060 <clock_gettime@plt>").
    if (machine_code.call_target && insn.op_str[0] == '0' && insn.op_str[1] == 'x' &&
        (insn.mnemonic[0] == 'c' || insn.mnemonic[0] == 'j'))
      if (const std::string target = machine_code.call_target(std::strtoull(insn.op_str, nullptr, 16)); !target.empty())
        row.name += " <" + target + ">";
    if (machine_code.note_of)
      if (const std::string note = machine_code.note_of(insn.address); !note.empty()) row.name += "  ; " + note;
    row.load_object = machine_code.object_name;
    row.values = row_values(request.metrics, registry, &exclusive, &inclusive, code.total());
    row.fields = {{"kind", "instruction"}, {"address", hex(insn.address)}, {"line", current ? std::to_string(current->line) : ""}};
    row.marker = "   ";
    table.rows.push_back(std::move(row));
    heat.push_back(sort_value_of(hot, registry, &exclusive, &inclusive));
  }
  // What capstone could not decode (data in the code, or bytes cut short)
  // is said, not dropped.
  const uint64_t decoded = count > 0 ? insns[count - 1].address + insns[count - 1].size - machine_code.address : 0;
  if (insns != nullptr) cs_free(insns, count);
  if (machine_code.says_undecoded && decoded < machine_code.bytes.size()) {
    ViewRow row;
    row.name = hex(machine_code.address + decoded) + ":  <" + std::to_string(machine_code.bytes.size() - decoded) +
               " bytes that are no instruction capstone knows>";
    row.load_object = machine_code.object_name;
    row.values.assign(table.columns.size(), 0.0);
    row.fields = {{"kind", "instruction"}, {"address", hex(machine_code.address + decoded)}, {"line", ""}};
    row.marker = "   ";
    table.rows.push_back(std::move(row));
    heat.push_back(-1);
  }
}

// The rows of a function of described machine code (a JIT-compiled Java
// method): its recorded bytes disassembled at their addresses, with the
// lines and notes (bytecode indexes) its decoder gave.
void add_described_machine_rows(ViewTable& table, const DescribedCode& described, const Function& f,
                                const std::string& object_name, const CodeProfile& code, const StackProfile& profile,
                                const MetricRegistry& registry, const ViewRequest& request, SourceText& sources,
                                const SortKey& hot, std::vector<double>& heat) {
  MachineCode machine_code{described.machine_code, described.start, static_cast<int>(described.machine), f.object,
                           object_name, {}, {}, {}, false};
  machine_code.line_of = [&described](uint64_t address) -> std::optional<LineKey> {
    const int line = described.source_file.empty() ? 0 : described.line_at(address);
    if (line > 0) return LineKey{described.source_file, line};
    return std::nullopt;
  };
  machine_code.note_of = [&described](uint64_t address) { return described.text_at(address); };
  machine_code.says_undecoded = true;
  const bool known_machine = described.machine == EM_X86_64 || described.machine == EM_386 || described.machine == EM_AARCH64;
  if (known_machine) add_machine_rows(table, machine_code, code, profile, registry, request, sources, hot, heat);
  const uint64_t missing = described.end - described.start - (known_machine ? described.machine_code.size() : 0);
  if (missing == 0) return;
  ViewRow row;
  row.name = hex(described.end - missing) + ":  <" + std::to_string(missing) + " more bytes of machine code " +
             (known_machine ? "not recorded>" : "of ELF machine " + std::to_string(described.machine) + ", which no disassembler here reads>");
  row.load_object = object_name;
  row.values.assign(table.columns.size(), 0.0);
  row.fields = {{"kind", "instruction"}, {"address", hex(described.end - missing)}, {"line", ""}};
  row.marker = "   ";
  table.rows.push_back(std::move(row));
  heat.push_back(-1);
}

}  // namespace

ViewTable annotated_disassembly(const CodeProfile& code, const StackProfile& profile, const ProgramStructure& structure,
                                const MetricRegistry& registry, const ViewRequest& request,
                                const AnnotationRequest& annotation) {
  const std::vector<FunctionId> ids = functions_for(annotation.target, annotation.which, profile, structure);
  if (ids.empty())
    throw std::runtime_error("'" + annotation.target + "' is neither a function with data nor a source file of one (see -functions)");
  ViewTable table = annotation_table("disasm", request, registry);
  SourceText sources(*annotation.paths, annotation.experiment_dirs, source_roots(structure, annotation));
  const SortKey hot = annotation_sort(request);
  std::vector<size_t> outside;
  size_t heading_at = 0;
  for (const FunctionId id : ids) {
    add_outside_headings(table, heading_at, sources, outside);
    const Function& f = structure.function(id);
    const ObjectSymbols* symbols = structure.symbols(f.object);
    heading_at = table.rows.size();
    ViewRow heading;
    heading.name = "Function: " + structure.name_beside_object(id) + " (" + structure.object(f.object).name + ")";
    heading.values.assign(table.columns.size(), 0.0);
    heading.fields = {{"kind", "function"}, {"address", hex(f.start)}, {"line", ""}};
    table.rows.push_back(std::move(heading));
    if (const DescribedCode* described = code.described(id); described != nullptr && symbols == nullptr) {
      const size_t begin = table.rows.size();
      std::vector<double> heat;
      if (!described->machine_code.empty())
        add_described_machine_rows(table, *described, f, structure.object(f.object).name, code, profile, registry,
                                   request, sources, hot, heat);
      else
        add_described_rows(table, *described, f, structure.object(f.object).name, code, profile, registry, request,
                           sources, hot, heat);
      mark_hot_rows(table, begin, heat, annotation.threshold_percent);
      continue;
    }
    if (symbols == nullptr) continue;
    if (f.inlined_only) {
      // No instruction is its own: its code is in the functions it was
      // inlined into.
      ViewRow row;
      row.name = "<inlined only: its instructions are in the functions that inlined it; -inline on -callers-callees names them>";
      row.values.assign(table.columns.size(), 0.0);
      row.fields = {{"kind", "instruction"}, {"address", ""}, {"line", ""}};
      row.marker = "   ";
      table.rows.push_back(std::move(row));
      continue;
    }
    // The function's extent: its symbol's size, else as far as data reaches.
    uint64_t size = f.size;
    if (size == 0) {
      const auto last = code.addresses().lower_bound({f.object, UINT64_MAX});
      for (auto it = code.addresses().lower_bound({f.object, f.start}); it != last; ++it)
        if (it->second.function == id) size = std::max(size, it->first.second - f.start + 16);
    }
    const std::vector<uint8_t> bytes = symbols->code_bytes(f.start, size);
    if (bytes.empty()) continue;
    MachineCode machine_code{bytes, f.start, symbols->machine(), f.object, structure.object(f.object).name, {}, {}, {}, false};
    machine_code.line_of = [symbols](uint64_t address) -> std::optional<LineKey> {
      if (const auto line = symbols->source_line(address)) return LineKey{line->file, line->line};
      return std::nullopt;
    };
    machine_code.call_target = [symbols](uint64_t address) -> std::string {
      if (const auto target = symbols->lookup(address))
        if (!target->name.empty()) return demangle(target->name.substr(0, target->name.find("@@")));
      return "";
    };
    const size_t begin = table.rows.size();
    std::vector<double> heat;
    add_machine_rows(table, machine_code, code, profile, registry, request, sources, hot, heat);
    mark_hot_rows(table, begin, heat, annotation.threshold_percent);
  }
  add_outside_headings(table, heading_at, sources, outside);
  mark_outside_rows(table, outside);
  return table;
}

}  // namespace lumen::analysis
