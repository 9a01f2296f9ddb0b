#include "archive_writer.h"

#include <lumen/record_format.h>
#include <yaml-cpp/yaml.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "experiment_metadata.h"
#include "archive_index.h"
#include "data_file_reader.h"
#include "experiment_format.h"
#include "loadobject_map.h"
#include "regular_file.h"

namespace lumen::archive {

namespace fs = std::filesystem;
using analysis::ArchivedObject;
using analysis::RecordedFile;

namespace {

// Every PC of every recorded stack: events name only stacks, so these are
// all the code any event touched.
std::unordered_set<uint64_t> recorded_pcs(const fs::path& experiment) {
  std::unordered_set<uint64_t> pcs;
  const fs::path stacks = experiment / LUMEN_STACKS_FILE;
  if (!fs::exists(fs::symlink_status(stacks))) return pcs;
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

// Each load object a recorded stack touched, by path, with what the runtime
// recorded of its file (of its first mapping).
std::map<std::string, RecordedFile> touched_objects(const fs::path& experiment) {
  analysis::LoadObjectMap map;
  map.load(experiment / LUMEN_LOADOBJECTS_FILE);
  std::map<std::string, RecordedFile> touched;
  const auto pcs = recorded_pcs(experiment);
  for (const analysis::MappedObject& object : map.objects()) {
    if (object.path.empty() || object.path[0] != '/' || touched.count(object.path)) continue;
    for (const uint64_t pc : pcs)
      if (pc >= object.start && pc < object.end) {
        touched.emplace(object.path, object.recorded);
        break;
      }
  }
  return touched;
}

std::string hash_hex(uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// Copies are named by what tells one build from another: a file rebuilt
// at the same path is another copy.
std::string copy_name(const std::string& path, const RecordedFile& file) {
  return fs::path(path).filename().string() + "." +
         (file.build_id.empty() ? hash_hex(file.content_hash) : file.build_id.substr(0, 16));
}

using Fd = analysis::FileDescriptor;

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw std::runtime_error("cannot " + what + " " + path.string() + ": " + std::strerror(errno));
}

void write_all(int fd, const char* bytes, size_t size, const fs::path& shown) {
  for (size_t done = 0; done < size;) {
    const ssize_t n = write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write", shown);
    done += static_cast<size_t>(n);
  }
}

// Writes `name` in the directory `directory` as a new file: a temporary
// created there with O_EXCL and O_NOFOLLOW, renamed over the name at the
// end. Whatever an experiment planted under either name (a link to a file
// elsewhere) is replaced, never written through.
template <typename Fill>
void replace_file(int directory, const std::string& name, const fs::path& shown, Fill fill) {
  const std::string temporary = "." + name + ".tmp";
  if (unlinkat(directory, temporary.c_str(), 0) != 0 && errno != ENOENT) fail("remove the old temporary of", shown);
  {
    const Fd out(openat(directory, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (out.get() < 0) fail("create", shown);
    fill(out.get());
  }
  if (renameat(directory, temporary.c_str(), directory, name.c_str()) != 0) fail("replace", shown);
}

void write_index(int directory, const fs::path& shown, const std::map<std::string, ArchivedObject>& objects,
                 const fs::path& archive_directory) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "objects" << YAML::Value << YAML::BeginSeq;
  for (const auto& [path, object] : objects) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "path" << YAML::Value << path;
    out << YAML::Key << "build_id" << YAML::Value << object.file.build_id;
    out << YAML::Key << "size" << YAML::Value << object.file.size;
    out << YAML::Key << "mtime_ns" << YAML::Value << object.file.mtime_ns;
    if (object.file.content_hash != 0)
      out << YAML::Key << "content_hash" << YAML::Value << hash_hex(object.file.content_hash);
    if (!object.copy.empty())
      out << YAML::Key << "copy" << YAML::Value << object.copy.lexically_relative(archive_directory).string();
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  const std::string text = std::string(out.c_str()) + "\n";
  replace_file(directory, analysis::kArchiveIndex, shown, [&](int fd) { write_all(fd, text.data(), text.size(), shown); });
}

// A load object named by the experiment, copied into archives/: read only
// when it is a regular file (a FIFO would block, a device never end).
void copy_object(const std::string& path, int directory, const std::string& name, const fs::path& shown) {
  const analysis::FileDescriptor in = analysis::open_regular_file(path, analysis::Symlinks::Follow);
  replace_file(directory, name, shown, [&](int out) {
    char buffer[1 << 16];
    for (;;) {
      const ssize_t n = read(in.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("read", path);
      if (n == 0) return;
      write_all(out, buffer, static_cast<size_t>(n), shown);
    }
  });
}

// The experiment's archives/, created if need be and opened without
// following a link: a symlinked archives/ would receive every copy.
int open_archive_directory(const fs::path& experiment) {
  const Fd experiment_dir(open(experiment.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (experiment_dir.get() < 0) fail("open", experiment);
  if (mkdirat(experiment_dir.get(), analysis::kArchiveDirectory, 0755) != 0 && errno != EEXIST)
    fail("create", experiment / analysis::kArchiveDirectory);
  const int fd = openat(experiment_dir.get(), analysis::kArchiveDirectory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
    throw std::runtime_error((experiment / analysis::kArchiveDirectory).string() +
                             " is a symbolic link or not a directory; nothing is archived through it");
  if (fd < 0) fail("open", experiment / analysis::kArchiveDirectory);
  return fd;
}

// `shared`: the founder's archives/, whose copies a descendant refers to
// instead of copying the same file again (a fork storm would otherwise copy
// the program once per child); empty for the founder itself. A file the
// founder has no copy of is copied there too, for the next descendant that
// maps it (er_kernel's processes, whose founder maps nothing).
ArchiveReport archive_one(const fs::path& experiment, bool copy_files, const fs::path& shared) {
  // The data blocks' versions are checked as they are read; the header's here.
  if (fs::exists(fs::symlink_status(experiment / metadata::kHeaderFile))) analysis::read_experiment_header(experiment);
  ArchiveReport report{experiment, 0, 0, {}, {}, {}};
  const fs::path directory = experiment / analysis::kArchiveDirectory;
  const Fd directory_fd(open_archive_directory(experiment));
  std::map<std::string, ArchivedObject> objects = analysis::read_archive_index(experiment);
  std::unique_ptr<Fd> shared_fd;  // opened at the first copy into the founder's archives/
  for (const auto& [path, recorded] : touched_objects(experiment)) {
    auto [entry, added] = objects.try_emplace(path);
    ArchivedObject& object = entry->second;
    if (!object.copy.empty()) continue;
    // The file there now, compared with what the runtime recorded (with an
    // entry of an earlier archiving, what that found).
    const RecordedFile expected = added ? recorded : object.file;
    const RecordedFile now = analysis::examine_file(path, expected.build_id.empty());
    if (!now.known()) {
      if (added) object.file = recorded;
      (analysis::is_regular_file(path, analysis::Symlinks::Follow) ? report.unreadable : report.missing).push_back(path);
      continue;
    }
    if (expected.known() && !analysis::same_file(now, expected)) {
      if (added) object.file = recorded;
      report.changed.push_back(path);
      continue;
    }
    object.file = now;
    if (!copy_files) continue;
    const std::string name = copy_name(path, now);
    if (!shared.empty() && fs::exists(shared / name)) {
      object.copy = fs::absolute(shared / name);
      continue;
    }
    if (!shared.empty() && shared_fd == nullptr) shared_fd = std::make_unique<Fd>(open_archive_directory(shared.parent_path()));
    const fs::path copy = (shared.empty() ? directory : shared) / name;
    try {
      copy_object(path, shared.empty() ? directory_fd.get() : shared_fd->get(), name, copy);
    } catch (const std::runtime_error& e) {
      // The others' copies and the index are still written.
      report.unreadable.push_back(path + " (" + e.what() + ")");
      continue;
    }
    object.copy = fs::absolute(copy);
    ++report.copied;
  }
  write_index(directory_fd.get(), directory / analysis::kArchiveIndex, objects, fs::absolute(directory));
  report.objects = objects.size();
  return report;
}

bool is_experiment(const fs::path& directory) {
  return fs::is_directory(directory) && fs::exists(directory / "loadobjects");
}

}  // namespace

std::vector<ArchiveReport> write_archives(const fs::path& experiment, bool copy_files, bool descendants) {
  if (!fs::is_directory(experiment) || !(fs::exists(experiment / metadata::kHeaderFile) || is_experiment(experiment)))
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
    // A link inside the experiment is not followed: it may lead anywhere.
    if (it->is_symlink()) continue;
    if (it->path().extension() == ".er" && is_experiment(it->path())) reports.push_back(archive_one(it->path(), copy_files, shared));
  }
  return reports;
}

void archive_after_recording(const fs::path& experiment, const std::string& tool, std::ostream& out) {
  try {
    for (const ArchiveReport& report : write_archives(experiment, true)) {
      for (const std::string& missing : report.missing)
        out << tool << ": " << missing << " was removed before it could be archived\n";
      for (const std::string& changed : report.changed)
        out << tool << ": " << changed
            << " changed while it ran and was not archived; its code will be shown as <unknown>\n";
      for (const std::string& unreadable : report.unreadable)
        out << tool << ": " << unreadable << " could not be read and was not copied\n";
    }
  } catch (const std::exception& e) {
    out << tool << ": archiving " << experiment.string() << " failed: " << e.what() << "\n";
  }
}

}  // namespace lumen::archive
