// analyzer [--plugin DIR]... [--port N] [--bind ADDR] [--no-browser]
//          [-setpath DIRS] [-addpath DIR]... EXPERIMENT...
// er_print's views in a browser: serves a page on 127.0.0.1 to the holder of
// the token in the URL it prints, and opens it where a desktop is.
#include <pthread.h>
#include <signal.h>

#include <iostream>
#include <sstream>
#include <cstdlib>
#include <thread>

#include "browser_launch.h"
#include "script.h"
#include "format_error.h"
#include "lumen_version.h"
#include "server.h"
#include "session.h"
#include "terminal_text.h"
#include "view_service.h"

using namespace lumen;

namespace {

void usage(std::ostream& out) {
  out << "usage: analyzer [--plugin DIR]... [--port N] [--bind ADDR] [--no-browser] [-setpath DIRS] [-addpath DIR]...\n"
         "                EXPERIMENT...\n"
         "  --plugin DIR   load the plugin in DIR too, as er_print --plugin does\n"
         "  --port N       listen on port N (default: a free port)\n"
         "  --bind ADDR    listen on address ADDR (default: 127.0.0.1)\n"
         "  --no-browser   print the URL and open no browser\n"
         "  -setpath DIRS  read source files only from DIRS (colon separated; $expts: the experiments)\n"
         "  -addpath DIR   read source files from DIR too\n";
}

struct Options {
  std::vector<std::string> plugins, experiments, setpath, addpath;
  std::string bind = "127.0.0.1";
  int port = 0;
  bool browser = true;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw er_print::CommandError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--plugin") options.plugins.push_back(next());
    else if (arg == "--port") {
      const std::string value = next();
      if (value.empty() || value.size() > 5 || value.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(value) > 65535)
        throw er_print::CommandError("--port takes a port number from 0 (any free port) to 65535");
      options.port = std::stoi(value);
    } else if (arg == "--bind") options.bind = next();
    else if (arg == "--no-browser") options.browser = false;
    else if (arg == "-setpath") options.setpath.push_back(next());
    else if (arg == "-addpath") options.addpath.push_back(next());
    else if (arg == "-h" || arg == "--help") {
      usage(std::cout);
      std::exit(0);
    } else if (arg == "-V" || arg == "--version") {
      std::cout << "analyzer (lumen) " << LUMEN_VERSION << "\n";
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-') {
      usage(std::cerr);
      std::exit(2);
    } else options.experiments.push_back(arg);
  }
  if (options.experiments.empty()) {
    usage(std::cerr);
    std::exit(2);
  }
  return options;
}

// Sources come only from the experiments' directories (their archived
// copies) and the directories named with -setpath and -addpath: a page may
// not have the server read other files for it.
void restrict_sources(er_print::Session& session, const Options& options) {
  analysis::SourcePaths& paths = session.source_paths();
  for (const std::string& list : options.setpath) paths.set_path(list);
  for (const std::string& dir : options.addpath) paths.add_path(dir);
  std::vector<std::filesystem::path> experiment_dirs;
  for (const auto& experiment : session.experiments()) experiment_dirs.push_back(experiment->path());
  paths.only_under(paths.roots(experiment_dirs, {}));
}

}  // namespace

int main(int argc, char** argv) {
  lumen::write_printable_text_only(std::cerr);
  try {
    const Options options = parse(argc, argv);
    // SIGINT and SIGTERM end the server from a thread of their own; the
    // server's threads, started after, inherit them blocked.
    sigset_t ending;
    sigemptyset(&ending);
    sigaddset(&ending, SIGINT);
    sigaddset(&ending, SIGTERM);
    sigaddset(&ending, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &ending, nullptr);

    std::ostringstream output;
    er_print::Session session(analysis::AnalysisPlugins::for_command_line(options.plugins), output);
    for (const std::string& path : options.experiments) session.open_experiment(path);
    for (const auto& experiment : session.experiments())
      for (const std::string& warning : experiment->warnings())
        std::cerr << "analyzer: " << experiment->path().string() << ": " << warning << "\n";
    // The defaults files er_print reads ($HOME/.er.rc, ./.er.rc) are the
    // page's defaults; their source paths are not taken.
    er_print::read_defaults(session, false, "analyzer");
    restrict_sources(session, options);
    analyzer::ViewService views(session, output);
    analyzer::Server server(views, options.bind, options.port);

    std::cout << "analyzer: " << server.url() << std::endl;
    if (options.browser && analyzer::desktop_present() && !analyzer::open_in_browser(server.url()))
      std::cerr << "analyzer: could not start xdg-open; open the URL above in a browser\n";
    std::thread ender([&] {
      int signal = 0;
      sigwait(&ending, &signal);
      server.stop();
    });
    server.serve();
    // serve() returns only once stopped, that is after ender's signal.
    ender.join();
    // Ends now: a decoding under way (idle_decoder.h) would hold the exit
    // until it ended, and the analyzer has nothing left to write.
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(0);
  } catch (const analysis::FormatError& e) {
    std::cerr << "analyzer: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "analyzer: " << e.what() << "\n";
    return 2;
  }
}
