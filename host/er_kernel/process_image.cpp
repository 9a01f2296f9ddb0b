#include "process_image.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "../../plugins/clock/clock_record.h"
#include "experiment_metadata.h"
#include "vdso_copy.h"

namespace lumen::kernel {

ProcessImage::ProcessImage(std::filesystem::path directory, metadata::ProcessFacts facts)
    : directory_(std::move(directory)), facts_(std::move(facts)) {}

void ProcessImage::open_files(MappedFiles& files) {
  if (files_open_) return;
  std::filesystem::create_directories(directory_);
  profile_.emplace(directory_ / clock::kDataFile);
  stacks_.emplace(directory_ / LUMEN_STACKS_FILE);
  loadobjects_.emplace(directory_ / LUMEN_LOADOBJECTS_FILE);
  files_open_ = true;
  if (!vdso_image().empty()) {
    std::ofstream vdso(directory_ / metadata::kVdsoImageFile, std::ios::binary);
    vdso.write(vdso_image().data(), static_cast<std::streamsize>(vdso_image().size()));
  }
  for (const LiveMapping& m : live_) write_mapping(m, files);
}

void ProcessImage::write_mapping(const LiveMapping& m, MappedFiles& files) {
  // Only a file's path is examined (not the vDSO's name).
  const metadata::LoadObjectIdentity identity =
      m.path.starts_with('/') ? files.identity(m.path) : metadata::LoadObjectIdentity{};
  lumen_loadobject_record record{m.time_ns, m.load_bias, m.start, m.end, LUMEN_LOADOBJECT_MAPPED,
                                 static_cast<uint32_t>(m.path.size())};
  std::string tail = m.path;
  tail.append(reinterpret_cast<const char*>(&identity), sizeof identity);
  loadobjects_->append(static_cast<uint32_t>(facts_.target_pid), LUMEN_RECORD_LOADOBJECT, &record, sizeof record,
                       tail.data(), tail.size());
}

void ProcessImage::map(const LiveMapping& mapping, MappedFiles& files) {
  // A mapping over another replaces it (perf reports no munmap): the old
  // object is unmapped then, so its code is not found in the new one's place.
  for (auto it = live_.begin(); it != live_.end();) {
    if (it->start < mapping.end && mapping.start < it->end) {
      if (files_open_) {
        lumen_loadobject_record record{mapping.time_ns, it->load_bias, it->start, it->end, LUMEN_LOADOBJECT_UNMAPPED,
                                       static_cast<uint32_t>(it->path.size())};
        loadobjects_->append(static_cast<uint32_t>(facts_.target_pid), LUMEN_RECORD_LOADOBJECT, &record,
                             sizeof record, it->path.data(), it->path.size());
      }
      it = live_.erase(it);
    } else {
      ++it;
    }
  }
  live_.push_back(mapping);
  if (files_open_) write_mapping(mapping, files);
}

uint64_t ProcessImage::stack_id(const std::vector<uint64_t>& stack, bool truncated) {
  std::string key(reinterpret_cast<const char*>(stack.data()), stack.size() * sizeof(uint64_t));
  key.push_back(truncated ? 't' : 'w');
  if (const auto found = stack_ids_.find(key); found != stack_ids_.end()) return found->second;
  const uint64_t id = stack_ids_.size() + 1;
  stack_ids_.emplace(std::move(key), id);
  lumen_stack_record record{id, static_cast<uint32_t>(stack.size()), truncated ? static_cast<uint32_t>(LUMEN_STACK_TRUNCATED) : 0u};
  stacks_->append(static_cast<uint32_t>(facts_.target_pid), LUMEN_RECORD_STACK, &record, sizeof record, stack.data(),
                  stack.size() * sizeof(uint64_t));
  return id;
}

void ProcessImage::sample(uint32_t tid, uint64_t time_ns, int cpu, uint64_t user_ns, uint64_t system_ns,
                          const std::vector<uint64_t>& stack, bool truncated, const KernelSymbols& kernel,
                          MappedFiles& files) {
  open_files(files);
  for (size_t i = 0; i < stack.size(); ++i) {
    const uint64_t pc = stack[i];
    if (pc == kIdleFrame) idle_ = true;
    // A frame past the leaf is a return address: analysis looks for the
    // call before it, the function to describe.
    else if (pc >= (uint64_t{1} << 63))
      if (const KernelFunction* f = kernel.find(i == 0 ? pc : pc - 1)) kernel_functions_.insert(f);
  }
  clock::ClockSplitSample record{time_ns, stack_id(stack, truncated), user_ns, system_ns, tid, cpu};
  profile_->append(tid, clock::kSplitSampleRecord, &record, sizeof record);
  ++samples_;
  user_ns_ += user_ns;
  system_ns_ += system_ns;
}

void ProcessImage::finish(const metadata::CollectionPlan& plan, const metadata::ProcessEnd* end, uint64_t end_ns,
                          bool exited) {
  if (!files_open_) return;
  // Sample points: the recording's start and end. Of the process's figures
  // only its CPU time is known, as its samples measured it.
  BlockFile samples(directory_ / LUMEN_SAMPLES_FILE);
  lumen_sample_record point{};
  point.time_ns = static_cast<uint64_t>(facts_.start_monotonic_ns);
  point.reason = LUMEN_SAMPLE_START;
  samples.append(static_cast<uint32_t>(facts_.target_pid), LUMEN_RECORD_SAMPLE, &point, sizeof point);
  point.time_ns = std::max(end_ns, point.time_ns);
  point.user_ns = user_ns_;
  point.system_ns = system_ns_;
  point.reason = LUMEN_SAMPLE_END;
  samples.append(static_cast<uint32_t>(facts_.target_pid), LUMEN_RECORD_SAMPLE, &point, sizeof point);
  samples.finish();
  // The kernel's code as described code of its objects, valid from the start.
  const auto describe = [&](uint64_t start, uint64_t end_address, const std::string& name, const std::string& object) {
    lumen_dynamic_code_record record{0, start, end_address - start, static_cast<uint32_t>(name.size()),
                                     static_cast<uint32_t>(object.size())};
    loadobjects_->append(static_cast<uint32_t>(facts_.target_pid), LUMEN_RECORD_DYNAMIC_CODE, &record, sizeof record,
                         (name + object).data(), name.size() + object.size());
  };
  for (const KernelFunction* f : kernel_functions_) describe(f->start, f->end, f->name, f->object);
  if (idle_) describe(kIdleFrame, kIdleFrame + 4096, kIdleFunction, kKernelObject);
  profile_->finish();
  stacks_->finish();
  loadobjects_->finish();
  std::string error;
  std::string header = metadata::header_text(plan, facts_, end);
  if (exited && end == nullptr)
    header += std::string(metadata::header::kExitSeen) + ": {time_ns: " + std::to_string(end_ns) + "}\n";
  if (!metadata::write_header_file(directory_.string(), header, error))
    throw std::runtime_error(error);
}

}  // namespace lumen::kernel
