#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <stdexcept>

#include "annotated_code.h"
#include "annotation_support.h"
#include "metric_cells.h"

namespace lumen::analysis {

namespace {

// The DWARF file names the target stands for: the source file defining a
// function of that name (as DWARF or the code's decoder names it; a
// function inlined only has the name -inline on shows), or the recorded
// files that are, or end with, the target. `built_ns`: for a file of a
// function's definition, the time its object's file was modified when
// recorded (the latest of several).
std::vector<std::string> files_for(const std::string& target, size_t which, const CodeProfile& code,
                                   const StackProfile& profile, const ProgramStructure& structure,
                                   std::map<std::string, int64_t>& built_ns) {
  std::vector<std::string> files;
  for (const FunctionId id : annotated_functions_named(profile, structure, target, which)) {
    if (const DescribedCode* described = code.described(id)) {
      if (!described->source_file.empty()) files.push_back(described->source_file);  // a Java method's .java file
      continue;
    }
    // The file of its definition: the lines of its own code and of the
    // calls it inlined, not those of what it inlined (a header's).
    if (auto file = structure.source_file_of(id)) {
      const Function& f = structure.function(id);
      if (f.object != kNoObject) built_ns[*file] = std::max(built_ns[*file], structure.object(f.object).built_ns);
      files.push_back(std::move(*file));
    }
  }
  if (files.empty() && which == 0) {
    for (const auto& [key, metrics] : code.lines()) {
      const bool same = key.file == target ||
                        (key.file.size() > target.size() && key.file.compare(key.file.size() - target.size(), target.size(), target) == 0 &&
                         key.file[key.file.size() - target.size() - 1] == '/');
      if (same) files.push_back(key.file);
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

}  // namespace

std::vector<std::filesystem::path> source_roots(const ProgramStructure& structure, const AnnotationRequest& annotation) {
  std::vector<std::string> object_paths;
  for (ObjectId o = 0; o < structure.object_count(); ++o) object_paths.push_back(structure.object(o).path);
  return annotation.paths->roots(annotation.experiment_dirs, object_paths);
}

std::string source_file_heading(const FoundSource& found, const std::vector<std::filesystem::path>& roots) {
  return found.outside ? "Source file: " + found.real.string() + found_outside_notice(roots) : "Source file: " + found.path.string();
}

namespace {

std::string local_time(int64_t ns) {
  const time_t seconds = static_cast<time_t>(ns / 1000000000);
  struct tm local;
  char text[32];
  localtime_r(&seconds, &local);
  strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
  return text;
}

// A source modified after the object built from it was (as recorded) may
// not be the text that code was compiled from: said in its heading.
std::string changed_source_notice(const std::filesystem::path& source, int64_t built_ns) {
  struct stat st;
  if (built_ns == 0 || stat(source.c_str(), &st) != 0) return "";
  const int64_t modified_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (modified_ns <= built_ns) return "";
  return " (changed since the program was built: modified " + local_time(modified_ns) + ", the program " +
         local_time(built_ns) + "; its lines may not match the recorded code)";
}

// -source of functions with data but no line information (a library built
// without debug information, or code a plugin names with no address): a
// heading saying so for each, and the function's own metrics on one row, as
// gprofng shows them.
ViewTable without_lines(const std::vector<FunctionId>& functions, const CodeProfile& code, const StackProfile& profile,
                        const ProgramStructure& structure, const MetricRegistry& registry, const ViewRequest& request) {
  ViewTable table = annotation_table("source", request, registry);
  for (const FunctionId id : functions) {
    const Function& f = structure.function(id);
    const std::string object = f.object == kNoObject ? std::string("no load object") : structure.object(f.object).path;
    ViewRow heading;
    heading.name = "Source file: (unknown): " + f.name + " in " + object +
                   " has no line-number information";
    heading.values.assign(table.columns.size(), 0.0);
    heading.fields = {{"kind", "file"}, {"line", ""}};
    table.rows.push_back(std::move(heading));
    // Its metrics as -functions has them.
    const MetricEngine::NodeMetrics* node = profile.functions().node(id);
    ViewRow row;
    row.name = "<Function: " + f.name + ", instructions without line numbers>";
    row.values = row_values(request.metrics, registry, node ? &node->exclusive : nullptr,
                            node ? &node->inclusive : nullptr, code.total());
    row.fields = {{"kind", "line"}, {"line", ""}};
    row.marker = "   ";
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace

void mark_outside_rows(ViewTable& table, const std::vector<size_t>& outside) {
  if (outside.empty()) return;
  for (size_t r = 0; r < table.rows.size(); ++r)
    table.rows[r].fields.emplace_back("outside", std::find(outside.begin(), outside.end(), r) != outside.end() ? "yes" : "");
}

ViewTable annotated_source(const CodeProfile& code, const StackProfile& profile, const ProgramStructure& structure,
                           const MetricRegistry& registry, const ViewRequest& request,
                           const AnnotationRequest& annotation) {
  std::map<std::string, int64_t> built_ns;
  const std::vector<std::string> files = files_for(annotation.target, annotation.which, code, profile, structure, built_ns);
  if (files.empty()) {
    const std::vector<FunctionId> functions = annotated_functions_named(profile, structure, annotation.target, annotation.which);
    if (!functions.empty()) return without_lines(functions, code, profile, structure, registry, request);
  }
  if (files.empty())
    throw std::runtime_error("'" + annotation.target +
                             "' is neither a function with data nor a source file of one (see -functions, -lines)");
  ViewTable table = annotation_table("source", request, registry);
  const std::vector<std::filesystem::path> roots = source_roots(structure, annotation);
  std::vector<size_t> outside;
  for (const std::string& file : files) {
    std::vector<std::string> text;
    const auto found = annotation.paths->locate(file, annotation.experiment_dirs, roots);
    if (found) text = source_file_lines(found->path);
    int last_line = static_cast<int>(text.size());
    const auto first = code.lines().lower_bound(LineKey{file, 0});
    for (auto it = first; it != code.lines().end() && it->first.file == file; ++it) last_line = std::max(last_line, it->first.line);
    ViewRow heading;
    heading.name = found ? source_file_heading(*found, roots) + changed_source_notice(found->path, built_ns[file])
                         : "Source file: " + file + " (not found; -setpath, -addpath or -pathmap tell where it is)";
    heading.values.assign(table.columns.size(), 0.0);
    heading.fields = {{"kind", "file"}, {"line", ""}};
    if (found && found->outside) outside.push_back(table.rows.size());
    table.rows.push_back(std::move(heading));
    const size_t begin = table.rows.size();
    std::vector<double> heat;
    for (int n = 1; n <= last_line; ++n) {
      const auto it = code.lines().find(LineKey{file, n});
      const bool has_text = n <= static_cast<int>(text.size());
      if (!has_text && it == code.lines().end()) continue;
      ViewRow row;
      row.name = has_text ? text[n - 1] : "";
      const Values* exclusive = it == code.lines().end() ? nullptr : &it->second.exclusive;
      const Values* inclusive = it == code.lines().end() ? nullptr : &it->second.inclusive;
      row.values = row_values(request.metrics, registry, exclusive, inclusive, code.total());
      row.fields = {{"kind", "line"}, {"line", std::to_string(n)}};
      row.marker = "   ";
      table.rows.push_back(std::move(row));
      heat.push_back(sort_value_of(annotation_sort(request), registry, exclusive, inclusive));
    }
    mark_hot_rows(table, begin, heat, annotation.threshold_percent);
  }
  mark_outside_rows(table, outside);
  return table;
}

}  // namespace lumen::analysis
