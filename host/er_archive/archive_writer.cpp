#include "archive_writer.h"

#include <lumen/record_format.h>
#include <yaml-cpp/yaml.h>

#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "archive_index.h"
#include "data_file_reader.h"
#include "loadobject_map.h"

namespace lumen::archive {

namespace fs = std::filesystem;
using analysis::ArchivedObject;

namespace {

// Every PC of every recorded stack: events name only stacks, so these are
// all the code any event touched.
std::unordered_set<uint64_t> recorded_pcs(const fs::path& experiment) {
  std::unordered_set<uint64_t> pcs;
  const fs::path stacks = experiment / LUMEN_STACKS_FILE;
  if (!fs::exists(stacks)) return pcs;
  analysis::read_data_file(stacks, [&](const analysis::RawRecord& r) {
    if (r.kind != LUMEN_RECORD_STACK || r.payload_bytes < sizeof(lumen_stack_record)) return;
    lumen_stack_record stack;
    std::memcpy(&stack, r.payload, sizeof stack);
    const size_t depth = std::min<size_t>(stack.depth, (r.payload_bytes - sizeof stack) / sizeof(uint64_t));
    const auto* frames = static_cast<const char*>(r.payload) + sizeof stack;
    for (size_t i = 0; i < depth; ++i) {
      uint64_t pc;
      std::memcpy(&pc, frames + i * sizeof pc, sizeof pc);
      pcs.insert(pc);
    }
  });
  return pcs;
}

std::set<std::string> touched_objects(const fs::path& experiment) {
  analysis::LoadObjectMap map;
  map.load(experiment / LUMEN_LOADOBJECTS_FILE);
  std::set<std::string> touched;
  const auto pcs = recorded_pcs(experiment);
  for (const analysis::MappedObject& object : map.objects()) {
    if (object.path.empty() || object.path[0] != '/' || touched.count(object.path)) continue;
    for (const uint64_t pc : pcs)
      if (pc >= object.start && pc < object.end) {
        touched.insert(object.path);
        break;
      }
  }
  return touched;
}

std::string copy_name(const std::string& path, const std::string& build_id) {
  return fs::path(path).filename().string() + "." + (build_id.empty() ? std::string("no-build-id") : build_id.substr(0, 16));
}

void write_index(const fs::path& index, const std::map<std::string, ArchivedObject>& objects,
                 const fs::path& archive_directory) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "objects" << YAML::Value << YAML::BeginSeq;
  for (const auto& [path, object] : objects) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "path" << YAML::Value << path;
    out << YAML::Key << "build_id" << YAML::Value << object.build_id;
    if (!object.copy.empty())
      out << YAML::Key << "copy" << YAML::Value << object.copy.lexically_relative(archive_directory).string();
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  const fs::path temporary = index.string() + ".tmp";
  {
    std::ofstream file(temporary);
    file << out.c_str() << "\n";
    if (!file) throw std::runtime_error("cannot write " + temporary.string());
  }
  fs::rename(temporary, index);
}

// `shared`: the founder's archives/, whose copies a descendant refers to
// instead of copying the same file again (a fork storm would otherwise copy
// the program once per child); empty for the founder itself.
ArchiveReport archive_one(const fs::path& experiment, bool copy_files, const fs::path& shared) {
  ArchiveReport report{experiment, 0, 0, {}};
  const fs::path directory = experiment / analysis::kArchiveDirectory;
  fs::create_directories(directory);
  std::map<std::string, ArchivedObject> objects = analysis::read_archive_index(experiment);
  for (const std::string& path : touched_objects(experiment)) {
    const bool on_disk = fs::exists(path);
    auto [entry, added] = objects.try_emplace(path);
    ArchivedObject& object = entry->second;
    if (added) object.build_id = on_disk ? analysis::read_build_id(path) : "";
    if (!on_disk) {
      if (object.copy.empty()) report.missing.push_back(path);
      continue;
    }
    // Copy only the file the experiment was recorded with.
    const bool same_file = object.build_id.empty() ? added : analysis::read_build_id(path) == object.build_id;
    if (copy_files && object.copy.empty() && same_file && !shared.empty() &&
        fs::exists(shared / copy_name(path, object.build_id))) {
      object.copy = fs::absolute(shared / copy_name(path, object.build_id));
    } else if (copy_files && object.copy.empty() && same_file) {
      const fs::path copy = directory / copy_name(path, object.build_id);
      fs::copy_file(path, copy, fs::copy_options::overwrite_existing);
      object.copy = fs::absolute(copy);
      ++report.copied;
    }
  }
  write_index(directory / analysis::kArchiveIndex, objects, fs::absolute(directory));
  report.objects = objects.size();
  return report;
}

bool is_experiment(const fs::path& directory) {
  return fs::is_directory(directory) && fs::exists(directory / "loadobjects");
}

}  // namespace

std::vector<ArchiveReport> write_archives(const fs::path& experiment, bool copy_files, bool descendants) {
  if (!fs::is_directory(experiment) || !(fs::exists(experiment / "header.yaml") || is_experiment(experiment)))
    throw std::runtime_error("'" + experiment.string() + "' is not an experiment (no header.yaml)");
  std::vector<ArchiveReport> reports;
  if (is_experiment(experiment)) reports.push_back(archive_one(experiment, copy_files, {}));
  const fs::path shared = fs::absolute(experiment / analysis::kArchiveDirectory);
  if (!descendants) return reports;
  for (auto it = fs::recursive_directory_iterator(experiment); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == analysis::kArchiveDirectory) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->path().extension() == ".er" && is_experiment(it->path())) reports.push_back(archive_one(it->path(), copy_files, shared));
  }
  return reports;
}

}  // namespace lumen::archive
