#include "perf_records.h"

#include <linux/perf_event.h>

#include <cstring>

namespace lumen::kernel {

namespace {

// Reads fields front to back; any read past the end marks the reader failed.
class FieldReader {
 public:
  FieldReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  template <typename T>
  T next() {
    T value{};
    if (at_ + sizeof value > size_) {
      failed_ = true;
      return value;
    }
    std::memcpy(&value, data_ + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  // A NUL-terminated string padded to 8 bytes.
  std::string text(size_t limit) {
    const size_t end = std::min(size_, limit);
    if (at_ >= end) {
      failed_ = true;
      return {};
    }
    const auto* start = reinterpret_cast<const char*>(data_ + at_);
    const size_t length = strnlen(start, end - at_);
    std::string value(start, length);
    at_ += (length + 8) & ~size_t{7};
    return value;
  }
  bool failed() const { return failed_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t at_ = sizeof(perf_event_header);
  bool failed_ = false;
};

// Trailing sample_id of a side-band record (pid, tid; time; cpu, res).
constexpr size_t kSampleIdBytes = 24;

uint64_t sample_id_time(const RawPerfRecord& record) {
  uint64_t time = 0;
  if (record.bytes.size() >= sizeof(perf_event_header) + kSampleIdBytes)
    std::memcpy(&time, record.bytes.data() + record.bytes.size() - 16, sizeof time);
  return time;
}

std::optional<PerfEvent> parse_sample(const perf_event_header& header, FieldReader& in) {
  Sample s;
  in.next<uint64_t>();  // ip: the call chain's first entry of its context
  s.pid = in.next<uint32_t>();
  s.tid = in.next<uint32_t>();
  s.time_ns = in.next<uint64_t>();
  s.cpu = in.next<uint32_t>();
  in.next<uint32_t>();
  s.period_ns = in.next<uint64_t>();
  const uint64_t count = in.next<uint64_t>();
  if (in.failed() || count > 4096) return std::nullopt;
  const uint16_t mode = header.misc & PERF_RECORD_MISC_CPUMODE_MASK;
  s.in_kernel = mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL;
  std::vector<uint64_t>* context = nullptr;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t pc = in.next<uint64_t>();
    if (in.failed()) return std::nullopt;
    if (pc >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) {
      context = pc == static_cast<uint64_t>(PERF_CONTEXT_KERNEL) ? &s.kernel_pcs
                : pc == static_cast<uint64_t>(PERF_CONTEXT_USER) ? &s.user_pcs
                                                                 : nullptr;
      continue;
    }
    if (context != nullptr) context->push_back(pc);
  }
  return s;
}

}  // namespace

std::optional<PerfEvent> parse(const RawPerfRecord& record) {
  if (record.bytes.size() < sizeof(perf_event_header)) return std::nullopt;
  perf_event_header header;
  std::memcpy(&header, record.bytes.data(), sizeof header);
  FieldReader in(record.bytes.data(), record.bytes.size());
  const size_t before_sample_id =
      record.bytes.size() >= sizeof header + kSampleIdBytes ? record.bytes.size() - kSampleIdBytes : 0;
  switch (header.type) {
    case PERF_RECORD_SAMPLE:
      return parse_sample(header, in);
    case PERF_RECORD_MMAP2: {
      Mapping m;
      m.pid = in.next<uint32_t>();
      m.tid = in.next<uint32_t>();
      m.start = in.next<uint64_t>();
      m.length = in.next<uint64_t>();
      m.file_offset = in.next<uint64_t>();
      in.next<uint64_t>();  // device, or build-id size
      in.next<uint64_t>();  // inode
      in.next<uint64_t>();  // inode generation
      in.next<uint64_t>();  // protection, flags
      m.path = in.text(before_sample_id);
      m.time_ns = sample_id_time(record);
      if (in.failed()) return std::nullopt;
      return m;
    }
    case PERF_RECORD_COMM: {
      Command c;
      c.pid = in.next<uint32_t>();
      c.tid = in.next<uint32_t>();
      c.name = in.text(before_sample_id);
      c.exec = (header.misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
      c.time_ns = sample_id_time(record);
      if (in.failed()) return std::nullopt;
      return c;
    }
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: {
      const uint32_t pid = in.next<uint32_t>(), parent_pid = in.next<uint32_t>(), tid = in.next<uint32_t>();
      in.next<uint32_t>();
      const uint64_t time = in.next<uint64_t>();
      if (in.failed()) return std::nullopt;
      if (header.type == PERF_RECORD_EXIT) return Exit{pid, tid, time};
      return Fork{pid, parent_pid, tid, time};
    }
    case PERF_RECORD_LOST: {
      in.next<uint64_t>();
      const uint64_t count = in.next<uint64_t>();
      if (in.failed()) return std::nullopt;
      return Lost{count, sample_id_time(record)};
    }
    default:
      return std::nullopt;
  }
}

uint64_t time_of(const PerfEvent& event) {
  return std::visit([](const auto& e) { return e.time_ns; }, event);
}

}  // namespace lumen::kernel
