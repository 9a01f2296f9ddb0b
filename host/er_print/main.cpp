// er_print [--plugin DIR]... [--threads N] [-command [args]]... [--format=text|csv|json] experiment...
// Without commands, an interactive prompt reads commands from stdin; "-"
// reads commands from stdin after those on the command line.
// Settings in $HOME/.er.rc and ./.er.rc apply before the commands.
#include <filesystem>
#include <iostream>

#include "analysis_threads.h"
#include "command_lookup.h"
#include "command_table.h"
#include "format_error.h"
#include "install_layout.h"
#include "lumen_version.h"
#include "script.h"
#include "session.h"
#include "terminal_text.h"

using namespace lumen;
using namespace lumen::er_print;

namespace {

struct Invocation {
  Command command;
  std::vector<std::string> arguments;
};

// The plugin directories given with --plugin DIR or --plugin=DIR: loaded
// before anything else, so their views are commands.
std::vector<std::string> plugin_options(int argc, char** argv) {
  std::vector<std::string> directories;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--plugin" && i + 1 < argc) directories.push_back(argv[++i]);
    else if (arg.rfind("--plugin=", 0) == 0) directories.push_back(arg.substr(9));
    else if (arg == "--plugin") throw CommandError("--plugin needs a plugin directory");
  }
  return directories;
}

}  // namespace

int main(int argc, char** argv) {
  lumen::write_printable_text_only(std::cout);
  lumen::write_printable_text_only(std::cerr);
  try {
    Session session(analysis::AnalysisPlugins::for_command_line(plugin_options(argc, argv)), std::cout);
    // What the views made goes out even when a later command fails.
    struct FlushAtEnd {
      Session& session;
      ~FlushAtEnd() {
        try {
          session.flush_views();
        } catch (...) {
        }
      }
    } flush_at_end{session};
    std::vector<Invocation> invocations;
    std::vector<std::string> experiments;
    bool commands_from_stdin = false;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--plugin" || arg.rfind("--plugin=", 0) == 0) {
        i += arg == "--plugin";
        continue;
      }
      if (arg.rfind("--format=", 0) == 0) {
        session.set_format(arg.substr(9));
        continue;
      }
      if (arg == "--format") {
        if (i + 1 >= argc) throw CommandError("--format needs text, csv or json");
        session.set_format(argv[++i]);
        continue;
      }
      if (arg == "--threads" || arg.rfind("--threads=", 0) == 0) {
        const std::string value = arg == "--threads" ? (i + 1 < argc ? argv[++i] : "") : arg.substr(10);
        if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || value.size() > 3 ||
            std::stoul(value) == 0)
          throw CommandError("--threads needs a number of threads from 1 to 256");
        analysis::set_analysis_threads(static_cast<unsigned>(std::stoul(value)));
        continue;
      }
      if (arg == "-V" || arg == "--version") {
        std::cout << "er_print (lumen) " << LUMEN_VERSION << "\n";
        if (argc == 2) return 0;
        continue;
      }
      if (arg == "-") {
        commands_from_stdin = true;
        continue;
      }
      if (arg == "--help" || arg == "-help") {
        invocations.push_back({*find_command("help", session.plugins()), {}});
        continue;
      }
      if (arg.size() > 1 && arg[0] == '-') {
        const Command command = resolve_command(arg.substr(1), arg, session.plugins());
        Invocation invocation{command, {}};
        for (size_t n = 0; n < command.argument_count; ++n) {
          if (i + 1 >= argc) throw CommandError(arg + " needs " + command.arguments);
          invocation.arguments.push_back(argv[++i]);
        }
        // An optional argument on the command line is a number ("-header 1")
        // that is not also the name of an experiment.
        for (size_t n = 0; n < command.optional_count && i + 1 < argc; ++n) {
          const std::string next = argv[i + 1];
          std::error_code ec;
          if (next.empty() || next.find_first_not_of("0123456789") != std::string::npos ||
              std::filesystem::exists(next, ec))
            break;
          invocation.arguments.push_back(argv[++i]);
        }
        invocations.push_back(invocation);
        continue;
      }
      experiments.push_back(arg);
    }
    for (const std::string& path : experiments) session.open_experiment(path);
    for (const auto& experiment : session.experiments())
      for (const std::string& warning : experiment->warnings())
        std::cerr << "er_print: " << experiment->path().string() << ": " << warning << "\n";
    read_defaults(session);
    if (invocations.empty()) return interactive(session);
    try {
      for (const Invocation& invocation : invocations) invocation.command.run(session, invocation.arguments);
    } catch (const QuitRequest&) {
      commands_from_stdin = false;
    }
    session.flush_views();
    return commands_from_stdin ? interactive(session) : 0;
  } catch (const analysis::FormatError& e) {
    std::cerr << "er_print: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "er_print: " << e.what() << "\n";
    return 2;
  }
}
