#include "system_recording.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "experiment_metadata.h"
#include "vdso_copy.h"

namespace lumen::kernel {

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string comm_of(uint32_t pid) {
  std::string comm = read_file("/proc/" + std::to_string(pid) + "/comm");
  while (!comm.empty() && comm.back() == '\n') comm.pop_back();
  return comm;
}

// Executable file mappings of a running process, from /proc/PID/maps.
struct ProcMapping {
  uint64_t start, end, offset;
  std::string path;
};
std::vector<ProcMapping> executable_mappings(uint32_t pid) {
  std::vector<ProcMapping> out;
  std::istringstream maps(read_file("/proc/" + std::to_string(pid) + "/maps"));
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, permissions, offset, device, inode;
    if (!(fields >> range >> permissions >> offset >> device >> inode)) continue;
    std::string path;
    std::getline(fields >> std::ws, path);
    if (permissions.size() < 3 || permissions[2] != 'x' || path.empty() || (path[0] != '/' && path != kVdsoMapping))
      continue;
    const size_t dash = range.find('-');
    if (dash == std::string::npos) continue;
    out.push_back({std::stoull(range.substr(0, dash), nullptr, 16), std::stoull(range.substr(dash + 1), nullptr, 16),
                   std::stoull(offset, nullptr, 16), path});
  }
  return out;
}

}  // namespace

std::vector<std::string> command_line_of(uint32_t pid, bool kernel_thread_name) {
  const std::string text = read_file("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> words;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\0', at);
    words.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  if (words.empty() && kernel_thread_name) {
    const std::string comm = comm_of(pid);
    if (!comm.empty()) words.push_back("[" + comm + "]");
  }
  return words;
}

SystemRecording::SystemRecording(std::filesystem::path founder, metadata::CollectionPlan plan,
                                 uint64_t start_monotonic_ns, long long start_wall_ns, const KernelSymbols& kernel)
    : founder_(std::move(founder)),
      plan_(std::move(plan)),
      start_monotonic_ns_(start_monotonic_ns),
      start_wall_ns_(start_wall_ns),
      kernel_(kernel) {}

std::unique_ptr<ProcessImage> SystemRecording::new_image(uint32_t pid, int image_number,
                                                         std::vector<std::string> command) {
  // The kernel reports pid -1 for a task past the point of its exit where
  // its pid is released: those samples are all processes' last moments.
  const bool exiting = pid == kExitingPid;
  std::string lineage = exiting ? "_pid_exiting" : "_pid" + std::to_string(pid);
  if (image_number > 0) lineage += "_x" + std::to_string(image_number);
  // A pid used again by a later process gets its own experiment.
  for (int again = 2; std::filesystem::exists(founder_ / (lineage + ".er")); ++again)
    lineage = "_pid" + std::to_string(pid) + "_n" + std::to_string(again) +
              (image_number > 0 ? "_x" + std::to_string(image_number) : "");
  metadata::ProcessFacts facts;
  facts.command = command.empty() ? std::vector<std::string>{"<pid " + std::to_string(pid) + ">"} : std::move(command);
  facts.start_wall_ns = start_wall_ns_;
  facts.start_monotonic_ns = static_cast<long long>(start_monotonic_ns_);
  facts.target_pid = static_cast<int>(pid);
  facts.lineage = lineage;
  return std::make_unique<ProcessImage>(founder_ / (lineage + ".er"), std::move(facts));
}

SystemRecording::Process& SystemRecording::process(uint32_t pid, uint64_t) {
  auto found = processes_.find(pid);
  if (found != processes_.end()) return found->second;
  Process& p = processes_[pid];
  p.pid = pid;
  p.image = new_image(pid, 0,
                      pid == 0             ? std::vector<std::string>{kIdleFunction}
                      : pid == kExitingPid ? std::vector<std::string>{"<exiting processes>"}
                                           : command_line_of(pid));
  return p;
}

void SystemRecording::read_running_processes() {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); }))
      continue;
    const auto pid = static_cast<uint32_t>(std::stoul(name));
    Process& p = process(pid, start_monotonic_ns_);
    for (const ProcMapping& m : executable_mappings(pid)) add_mapping(p, start_monotonic_ns_, m.start, m.end, m.offset, m.path);
  }
}

void SystemRecording::set_ending(uint32_t pid, const metadata::ProcessEnd& end) { endings_[pid] = end; }

void SystemRecording::handle(const PerfEvent& event) {
  if (const auto* s = std::get_if<Sample>(&event)) on_sample(*s);
  else if (const auto* m = std::get_if<Mapping>(&event)) on_mapping(*m);
  else if (const auto* c = std::get_if<Command>(&event)) on_command(*c);
  else if (const auto* f = std::get_if<Fork>(&event)) on_fork(*f);
  else if (const auto* x = std::get_if<Exit>(&event)) on_exit(*x);
  else if (const auto* l = std::get_if<Lost>(&event)) totals_.lost_records += l->count;
  finish_exited(time_of(event));
}

void SystemRecording::on_sample(const Sample& sample) {
  ++totals_.samples;
  stack_.clear();
  if (sample.pid == 0) {
    ++totals_.idle_samples;
    stack_.push_back(kIdleFrame);
  } else {
    for (const uint64_t pc : sample.kernel_pcs)
      if (stack_.size() < LUMEN_MAX_STACK_DEPTH) stack_.push_back(pc);
    for (const uint64_t pc : sample.user_pcs)
      if (stack_.size() < LUMEN_MAX_STACK_DEPTH) stack_.push_back(pc);
  }
  const bool truncated = sample.kernel_pcs.size() + sample.user_pcs.size() > LUMEN_MAX_STACK_DEPTH;
  const bool system = sample.in_kernel || sample.pid == 0;
  Process& p = process(sample.pid, sample.time_ns);
  p.image->sample(sample.tid, sample.time_ns, static_cast<int>(sample.cpu), system ? 0 : sample.period_ns,
                  system ? sample.period_ns : 0, stack_, truncated, kernel_, files_);
}

void SystemRecording::on_mapping(const Mapping& m) {
  if (m.pid == 0 || m.path.empty() || (m.path[0] != '/' && m.path != kVdsoMapping) || m.length == 0) return;
  add_mapping(process(m.pid, m.time_ns), m.time_ns, m.start, m.start + m.length, m.file_offset, m.path);
}

void SystemRecording::add_mapping(Process& p, uint64_t time_ns, uint64_t start, uint64_t end, uint64_t offset,
                                  const std::string& path) {
  // Code in memory no file holds (memfd_create's) stays unnamed, as a
  // JIT's does: no path to read it from.
  if (path.starts_with("/memfd:")) return;
  if (path == kVdsoMapping) {
    if (!vdso_image().empty())
      p.image->map({time_ns, start, end, start - vdso_link_address(), metadata::kVdsoObject}, files_);
    return;
  }
  const auto bias = files_.load_bias(path, start, offset);
  p.image->map({time_ns, start, end, bias.value_or(start - offset), path}, files_);
}

void SystemRecording::on_command(const Command& c) {
  if (!c.exec || c.pid != c.tid) return;  // a thread's name
  Process& p = process(c.pid, c.time_ns);
  // Its command line is read now, while the process most likely still
  // runs this image; else the kernel's name for it.
  // (A process already gone, a zombie, has none: then its name.)
  std::vector<std::string> command =
      comm_of(c.pid) == c.name ? command_line_of(c.pid, false) : std::vector<std::string>{};
  if (command.empty()) command.push_back(c.name);
  p.done.push_back(std::move(p.image));
  p.image = new_image(c.pid, ++p.images, std::move(command));
}

void SystemRecording::on_exit(const Exit& x) {
  if (x.pid == x.tid && x.pid != 0) exited_.push_back({x.pid, x.time_ns});  // not a thread's
}

void SystemRecording::finish_exited(uint64_t now_ns) {
  // A process's last samples may follow its exit record by a little (its
  // way out of the kernel): it is written once events are well past it, so
  // a long recording holds only the living.
  constexpr uint64_t kAfterExitNs = 100'000'000;
  while (!exited_.empty() && exited_.front().second + kAfterExitNs < now_ns) {
    const auto [pid, time_ns] = exited_.front();
    exited_.pop_front();
    const auto found = processes_.find(pid);
    if (found == processes_.end() || pid == command_pid_) continue;
    for (auto& image : found->second.done) {
      image->finish(plan_, nullptr, time_ns);
      totals_.processes += image->recorded();
    }
    found->second.image->finish(plan_, nullptr, time_ns, true);
    totals_.processes += found->second.image->recorded();
    processes_.erase(found);
  }
}

void SystemRecording::on_fork(const Fork& f) {
  if (f.pid != f.tid || f.pid == f.parent_pid) return;  // a new thread
  std::vector<LiveMapping> inherited;
  std::vector<std::string> command;
  if (const auto parent = processes_.find(f.parent_pid); parent != processes_.end()) {
    inherited = parent->second.image->mappings();
    command = parent->second.image->facts().command;
  }
  if (const auto old = processes_.find(f.pid); old != processes_.end()) {
    // The pid's earlier process is gone: it keeps its experiment.
    old->second.done.push_back(std::move(old->second.image));
    std::vector<std::unique_ptr<ProcessImage>> done = std::move(old->second.done);
    processes_.erase(old);
    for (auto& image : done) {
      image->finish(plan_, nullptr, f.time_ns);
      totals_.processes += image->recorded();
    }
  }
  Process& child = processes_[f.pid];
  child.pid = f.pid;
  child.image = new_image(f.pid, 0, command);
  for (LiveMapping m : inherited) {
    m.time_ns = f.time_ns;
    child.image->map(m, files_);
  }
}

RecordingTotals SystemRecording::finish(uint64_t end_ns) {
  std::map<uint32_t, uint64_t> exited(exited_.begin(), exited_.end());  // those not written yet
  for (auto& [pid, p] : processes_) {
    for (auto& image : p.done) {
      image->finish(plan_, nullptr, end_ns);
      totals_.processes += image->recorded();
    }
    const auto ending = endings_.find(pid);
    const auto exit = exited.find(pid);
    p.image->finish(plan_, ending == endings_.end() ? nullptr : &ending->second,
                    exit == exited.end() ? end_ns : exit->second, exit != exited.end());
    totals_.processes += p.image->recorded();
  }
  processes_.clear();
  return totals_;
}

}  // namespace lumen::kernel
