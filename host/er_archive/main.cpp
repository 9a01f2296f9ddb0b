// er_archive [-A on|copy] [-n] [-q] EXPERIMENT...: records in each
// experiment's archives/ the load objects its events touched (path and
// build-id; with copy, the default, the files themselves), so er_print can
// still name its functions after the binaries were rebuilt or deleted.
#include <iostream>
#include <string>
#include <vector>

#include "archive_writer.h"
#include "terminal_text.h"

namespace {

void usage() {
  std::cerr << "usage: er_archive [-A on|copy] [-n] [-q] experiment...\n"
               "  -A copy  copy each load object into the experiment (default)\n"
               "  -A on    record only paths and build-ids\n"
               "  -n       this experiment only, not its descendants\n"
               "  -q       quiet\n";
}

}  // namespace

int main(int argc, char** argv) {
  lumen::write_printable_text_only(std::cout);
  lumen::write_printable_text_only(std::cerr);
  bool copy = true, descendants = true, quiet = false;
  std::vector<std::string> experiments;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-A" && i + 1 < argc) {
      const std::string mode = argv[++i];
      if (mode != "on" && mode != "copy") {
        std::cerr << "er_archive: -A takes on or copy, not '" << mode << "'\n";
        return 2;
      }
      copy = mode == "copy";
    } else if (arg == "-n") {
      descendants = false;
    } else if (arg == "-q") {
      quiet = true;
    } else if (arg == "-h" || arg == "--help") {
      usage();
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      std::cerr << "er_archive: unknown option '" << arg << "'\n";
      usage();
      return 2;
    } else {
      experiments.push_back(arg);
    }
  }
  if (experiments.empty()) {
    usage();
    return 2;
  }
  int status = 0;
  for (const std::string& experiment : experiments) {
    try {
      for (const auto& report : lumen::archive::write_archives(experiment, copy, descendants)) {
        if (!quiet)
          std::cout << report.experiment.string() << ": " << report.objects << " load objects archived, "
                    << report.copied << " copied\n";
        for (const std::string& missing : report.missing)
          std::cerr << "er_archive: " << report.experiment.string() << ": " << missing
                    << " is gone and was not archived before; its functions will not be named\n";
        for (const std::string& changed : report.changed)
          std::cerr << "er_archive: " << report.experiment.string() << ": " << changed
                    << " changed since it was recorded and was not archived before; its code will be shown as "
                       "<unknown>\n";
        for (const std::string& unreadable : report.unreadable)
          std::cerr << "er_archive: " << report.experiment.string() << ": " << unreadable
                    << " could not be read and was not copied\n";
      }
    } catch (const std::exception& e) {
      std::cerr << "er_archive: " << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}
