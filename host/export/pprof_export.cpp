// pprof's profile.proto, gzipped as pprof reads it: one sample type per
// exported metric with its unit, one sample per (unique stack, thread) with
// thread, process and rank labels, a location and a function per function
// (its name, file and line), a mapping per load object with its build-id.
// Locations are at the function's entry, as file addresses of its object:
// lumen attributes to functions, so a pprof location is a function.
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "archive_index.h"
#include "experiment_metadata.h"
#include "export_formats.h"
#include "export_frames.h"
#include "profile.pb.h"

namespace lumen::exporting {

namespace {

namespace pb = perftools::profiles;

class StringTable {
 public:
  explicit StringTable(pb::Profile& profile) : profile_(profile) { index(""); }
  int64_t index(const std::string& text) {
    const auto [it, inserted] = indices_.try_emplace(text, static_cast<int64_t>(indices_.size()));
    if (inserted) profile_.add_string_table(text);
    return it->second;
  }

 private:
  pb::Profile& profile_;
  std::unordered_map<std::string, int64_t> indices_;
};

class ProfileBuilder {
 public:
  explicit ProfileBuilder(const ExportInput& input) : input_(input), strings_(profile_) {
    for (const size_t metric : input.metrics) {
      const analysis::MetricDef& def = input.registry.metrics().at(metric);
      pb::ValueType* type = profile_.add_sample_type();
      type->set_type(strings_.index(def.keyword));
      type->set_unit(strings_.index(unit_word(def.unit)));
    }
    profile_.set_default_sample_type(strings_.index(input.registry.metrics().at(input.metrics.front()).keyword));
    for (const auto& experiment : input.experiments)
      for (const auto& [path, archived] : analysis::read_archive_index(experiment->path()))
        if (!archived.file.build_id.empty()) recorded_build_ids_.emplace(path, archived.file.build_id);
  }

  // pprof takes the first mapping for the program ("File:" in its reports):
  // the object the command ran, when it is among the profile's.
  void add_program_mapping() {
    const YAML::Node command = input_.experiments.front()->header()[metadata::header::kCommand];
    std::string program;
    if (command && command.IsSequence() && command.size() > 0) program = command[0].as<std::string>("");
    else if (command && command.IsScalar()) program = command.as<std::string>().substr(0, command.as<std::string>().find(' '));
    program = std::filesystem::path(program).filename().string();
    if (program.empty()) return;
    for (analysis::ObjectId id = 0; id < input_.structure.object_count(); ++id)
      if (input_.structure.object(id).name == program) {
        mapping(id);
        return;
      }
  }

  void add_samples() {
    const auto& shares = input_.profile.stack_threads();
    for (size_t i = 0; i < shares.size(); ++i) {
      const auto values = input_.profile.stack_thread_values(i);
      bool any = false;
      for (const size_t metric : input_.metrics) any = any || values[metric] != 0;
      if (!any) continue;
      const analysis::UniqueStack& stack = input_.profile.stacks().at(shares[i].stack);
      pb::Sample* sample = profile_.add_sample();
      for (const analysis::FunctionId f : input_.profile.frames(stack)) sample->add_location_id(location(f));
      for (const size_t metric : input_.metrics) sample->add_value(values[metric]);
      const analysis::Experiment& experiment = *input_.experiments.at(stack.experiment);
      add_label(*sample, "thread", "Thread " + std::to_string(experiment.thread_number(shares[i].thread_id)));
      add_number(*sample, "thread_id", shares[i].thread_id);
      add_number(*sample, "pid", static_cast<int64_t>(process_id(experiment, stack.experiment)));
      // A string: pprof's reader drops a numeric label whose value is 0 (rank 0's).
      if (const auto rank = mpi_rank(experiment)) add_label(*sample, "rank", std::to_string(*rank));
    }
  }

  void add_times() {
    const YAML::Node& header = input_.experiments.front()->header();
    try {
      if (header[metadata::header::kStartWallNs]) {
        const auto start = header[metadata::header::kStartWallNs].as<int64_t>();
        profile_.set_time_nanos(start);
        if (header[metadata::header::kEndWallNs])
          profile_.set_duration_nanos(header[metadata::header::kEndWallNs].as<int64_t>() - start);
      }
    } catch (const YAML::Exception&) {
      // A header without readable times: the profile says no time.
    }
    profile_.add_comment(strings_.index("lumen experiment " + input_.experiments.front()->path().string()));
  }

  const pb::Profile& profile() { return profile_; }

 private:
  void add_label(pb::Sample& sample, const std::string& key, const std::string& text) {
    pb::Label* label = sample.add_label();
    label->set_key(strings_.index(key));
    label->set_str(strings_.index(text));
  }
  void add_number(pb::Sample& sample, const std::string& key, int64_t number) {
    pb::Label* label = sample.add_label();
    label->set_key(strings_.index(key));
    label->set_num(number);
  }

  uint64_t mapping(analysis::ObjectId object) {
    const auto [it, inserted] = mappings_.try_emplace(object, mappings_.size() + 1);
    if (inserted) {
      const analysis::LoadObject& lo = input_.structure.object(object);
      pb::Mapping* m = profile_.add_mapping();
      m->set_id(it->second);
      m->set_filename(strings_.index(lo.path.empty() ? lo.name : lo.path));
      // As the archive recorded it, else from what the analysis read (the
      // vDSO's from the experiment's copy, whose path names no file).
      const auto recorded = recorded_build_ids_.find(lo.path);
      const std::string build_id = recorded != recorded_build_ids_.end() ? recorded->second
                                   : lo.file.empty()                    ? std::string()
                                                                        : analysis::read_build_id(lo.file);
      m->set_build_id(strings_.index(build_id));
      m->set_has_functions(true);
      m->set_has_filenames(true);
      m->set_has_line_numbers(true);
      mapping_messages_[object] = m;
    }
    return it->second;
  }

  uint64_t location(analysis::FunctionId f) {
    const auto [it, inserted] = locations_.try_emplace(f, locations_.size() + 1);
    if (!inserted) return it->second;
    const analysis::Function& function = input_.structure.function(f);
    const auto source = function_source(input_, f);
    pb::Function* fn = profile_.add_function();
    fn->set_id(it->second);
    fn->set_name(strings_.index(function_name(input_, f)));
    fn->set_system_name(strings_.index(function.mangled_name.empty() ? function_name(input_, f) : function.mangled_name));
    if (source) {
      fn->set_filename(strings_.index(source->file));
      fn->set_start_line(source->line);
    }
    pb::Location* loc = profile_.add_location();
    loc->set_id(it->second);
    if (function.object != analysis::kNoObject) {
      loc->set_mapping_id(mapping(function.object));
      loc->set_address(function.start);
      pb::Mapping* m = mapping_messages_.at(function.object);
      m->set_memory_limit(std::max<uint64_t>(m->memory_limit(), function.start + std::max<uint64_t>(function.size, 1)));
    }
    pb::Line* line = loc->add_line();
    line->set_function_id(it->second);
    if (source) line->set_line(source->line);
    return it->second;
  }

  const ExportInput& input_;
  pb::Profile profile_;
  StringTable strings_;
  std::map<std::string, std::string> recorded_build_ids_;
  std::unordered_map<analysis::ObjectId, uint64_t> mappings_;
  std::unordered_map<analysis::ObjectId, pb::Mapping*> mapping_messages_;
  std::unordered_map<analysis::FunctionId, uint64_t> locations_;
};

}  // namespace

void write_pprof(const ExportInput& input, const std::filesystem::path& file) {
  ProfileBuilder builder(input);
  builder.add_program_mapping();
  builder.add_samples();
  builder.add_times();
  std::string bytes;
  if (!builder.profile().SerializeToString(&bytes)) throw ExportError("the pprof profile could not be encoded");
  gzFile out = gzopen(file.c_str(), "wb");
  if (out == nullptr) throw ExportError("cannot write " + file.string());
  const int written = bytes.empty() ? 0 : gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size()));
  const int closed = gzclose(out);
  if (written != static_cast<int>(bytes.size()) || closed != Z_OK) throw ExportError("writing " + file.string() + " failed");
}

}  // namespace lumen::exporting
