// er_html [--plugin DIR]... [-o DIR] [-metrics SPEC] [-compare [MODE]] [--functions N] [--sources] EXPERIMENT...
// The analyzer's page with its views for these experiments, written to
// DIR (default: the first experiment's name with .html instead of .er) so
// that any current browser opens DIR/index.html from disk, no server.
#include <charconv>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "export_writer.h"
#include "exported_views.h"
#include "format_error.h"
#include "lumen_version.h"
#include "script.h"
#include "session.h"
#include "terminal_text.h"
#include "view_service.h"

using namespace lumen;

namespace {

void usage(std::ostream& out) {
  out << "usage: er_html [--plugin DIR]... [-o DIR] [-metrics SPEC] [-compare [on|delta|ratio]] [--functions N]\n"
         "               [--sources] EXPERIMENT...\n"
         "  -o DIR          write DIR/index.html and its files (default: EXPERIMENT with .html for .er)\n"
         "  -metrics SPEC   the metrics shown, as er_print -metrics takes them\n"
         "  -compare MODE   the experiments side by side, as er_print -compare (default mode: on)\n"
         "  --functions N   callers-callees and disassembly (and source) of the N hottest functions (default 20)\n"
         "  --sources       the annotated source of those functions, read from the source files the\n"
         "                  experiment names (left out unless asked: a report is shared)\n";
}

struct Options {
  std::vector<std::string> plugins, experiments;
  std::string directory, metrics, compare;
  er_html::ExportChoice choice;
};

size_t count_of(const std::string& option, const std::string& value) {
  size_t count = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
  if (value.empty() || error != std::errc{} || end != value.data() + value.size() || count > 100000)
    throw er_print::CommandError(option + " takes a number of functions, 0 to 100000");
  return count;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw er_print::CommandError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "-o") options.directory = next();
    else if (arg == "--plugin") options.plugins.push_back(next());
    else if (arg == "-metrics") options.metrics = next();
    else if (arg == "-compare") {
      const bool mode = i + 1 < argc && (std::string_view(argv[i + 1]) == "on" || std::string_view(argv[i + 1]) == "delta" ||
                                         std::string_view(argv[i + 1]) == "ratio" || std::string_view(argv[i + 1]) == "off");
      options.compare = mode ? argv[++i] : "on";
    } else if (arg == "--functions") options.choice.functions = count_of(arg, next());
    else if (arg == "--sources") options.choice.sources = true;
    else if (arg == "-h" || arg == "--help") {
      usage(std::cout);
      std::exit(0);
    } else if (arg == "-V" || arg == "--version") {
      std::cout << "er_html (lumen) " << LUMEN_VERSION << "\n";
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
  if (options.compare != "" && options.compare != "off" && options.experiments.size() < 2)
    throw er_print::CommandError("-compare needs two experiments");
  if (options.directory.empty()) {
    std::filesystem::path first = std::filesystem::path(options.experiments.front()).lexically_normal();
    if (!first.has_filename()) first = first.parent_path();
    options.directory = first.replace_extension(".html").filename().string();
  }
  return options;
}

// What the page says of the export, for a view it does not hold.
std::string about(const Options& options) {
  nlohmann::json about = {{"experiments", options.experiments},
                          {"functions", options.choice.functions},
                          {"sources", options.choice.sources}};
  return about.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

int main(int argc, char** argv) {
  lumen::write_printable_text_only(std::cout);
  lumen::write_printable_text_only(std::cerr);
  try {
    const Options options = parse(argc, argv);
    std::ostringstream output;
    er_print::Session session(analysis::AnalysisPlugins::for_command_line(options.plugins), output);
    for (const std::string& path : options.experiments) session.open_experiment(path);
    for (const auto& experiment : session.experiments())
      for (const std::string& warning : experiment->warnings())
        std::cerr << "er_html: " << experiment->path().string() << ": " << warning << "\n";
    // The page's settings are the defaults files' (as the analyzer's), then
    // the command line's; their source paths are not taken.
    er_print::read_defaults(session, false, "er_html");
    if (!options.metrics.empty()) session.set_metrics(options.metrics);
    if (!options.compare.empty()) session.set_compare(options.compare);
    // A report is shared: it holds no source file unless asked to.
    if (!options.choice.sources) session.source_paths().only_under({});
    analyzer::ViewService views(session, output, 0);  // each view is asked once: none kept
    er_html::ExportWriter writer(options.directory, views.session_summary());
    er_html::export_views(views, options.choice,
                          [&](const std::string& command, const std::string& answer) { writer.add_view(command, answer); });
    writer.finish(about(options));
    std::cout << "er_html: wrote " << (std::filesystem::path(options.directory) / "index.html").string() << "\n";
    return 0;
  } catch (const analysis::FormatError& e) {
    std::cerr << "er_html: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "er_html: " << e.what() << "\n";
    return 2;
  }
}
