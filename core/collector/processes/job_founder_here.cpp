#include "processes/job_founder_here.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "collection_plan.h"
#include "experiment_header.h"
#include "experiment_metadata.h"
#include "yaml_text.h"
#include "processes/descendant_header.h"

namespace lumen::collector {

namespace {

// The forwarded plan travels as hexadecimal: a launcher forwards a
// variable's value, but not every launcher keeps a newline in one.
bool from_hex(const char* hex, std::string& text) {
  const auto digit = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  text.clear();
  for (const char* p = hex; *p != '\0'; p += 2) {
    const int high = digit(p[0]), low = p[1] == '\0' ? -1 : digit(p[1]);
    if (high < 0 || low < 0) return false;
    text.push_back(static_cast<char>(high * 16 + low));
  }
  return true;
}

// Writes `text` as `directory/name` by rename, so a reader sees the whole
// file or none.
bool write_whole(const std::string& directory, const char* name, const std::string& text) {
  const std::string final_path = directory + "/" + name;
  const std::string temporary = final_path + "." + std::to_string(getpid()) + ".tmp";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  if (!written || rename(temporary.c_str(), final_path.c_str()) != 0) {
    unlink(temporary.c_str());
    return false;
  }
  return true;
}

}  // namespace

bool job_founder_here(const std::string& founder) {
  const std::string plan_file = founder + "/" + metadata::kPlanFile;
  struct stat existing;
  if (stat(plan_file.c_str(), &existing) == 0) return true;
  const char* hex = std::getenv("LUMEN_MPI_PLAN");
  const char* key = std::getenv("LUMEN_MPI_JOB_KEY");
  std::string plan_text;
  if (hex == nullptr || key == nullptr || *key == '\0' || !from_hex(hex, plan_text)) return false;
  metadata::CollectionPlan plan;
  std::istringstream in(plan_text);
  std::string error;
  if (!metadata::read_plan(in, plan_file, plan, error)) return false;
  if (mkdir(founder.c_str(), 0755) != 0 && errno != EEXIST) return false;
  // The founder holds no process here: no plugin of its own.
  plan.plugins.clear();
  plan.left_out.clear();
  metadata::ProcessFacts facts;
  facts.command = command_words();
  facts.start_wall_ns = metadata::wall_clock_ns();
  const std::string header = metadata::header_text(plan, facts, nullptr) + "job: {launcher: collect, key: " +
                             metadata::yaml_scalar(key) + ", ranks: 0}\n";
  // Each rank of this host that finds no plan writes both files under a
  // name of its own first, so that ranks starting together never meet in
  // one temporary file; the plan last, which tells the others it is done.
  if (stat((founder + "/" + metadata::kHeaderFile).c_str(), &existing) != 0 &&
      !write_whole(founder, metadata::kHeaderFile, header))
    return false;
  return write_whole(founder, metadata::kPlanFile, plan_text);
}

}  // namespace lumen::collector
