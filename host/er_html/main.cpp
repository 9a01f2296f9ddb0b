// er_html [--plugin DIR]... [-o DIR] [-compare] [-metrics SPEC] [--sources] EXPERIMENT...
// Writes a report that any current browser opens from disk: DIR/index.html
// (default: the first experiment's name with .html instead of .er).
#include <iostream>

#include "command_table.h"
#include "format_error.h"
#include "report_data.h"
#include "report_writer.h"
#include "terminal_text.h"

using namespace lumen;

namespace {

void usage(std::ostream& out) {
  out << "usage: er_html [--plugin DIR]... [-o DIR] [-compare] [-metrics SPEC] [--sources] EXPERIMENT...\n"
         "  -o DIR        write DIR/index.html and its files (default: EXPERIMENT with .html for .er)\n"
         "  -compare      a differential flame graph of the first two experiments\n"
         "  -metrics SPEC the metrics shown, as er_print -metrics takes them\n"
         "  --sources     embed the annotated source of the hottest functions, read from the source\n"
         "                files the experiment names (left out unless asked: a report is shared)\n";
}

}  // namespace

int main(int argc, char** argv) {
  lumen::write_printable_text_only(std::cout);
  lumen::write_printable_text_only(std::cerr);
  try {
    std::vector<std::string> plugins, experiments;
    std::string directory, metrics;
    er_html::ReportOptions options;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw er_print::CommandError(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "-o") directory = next();
      else if (arg == "--plugin") plugins.push_back(next());
      else if (arg == "-compare") options.compare = true;
      else if (arg == "-metrics") metrics = next();
      else if (arg == "--sources") options.sources = true;
      else if (arg == "-h" || arg == "--help") {
        usage(std::cout);
        return 0;
      } else if (!arg.empty() && arg[0] == '-') {
        usage(std::cerr);
        return 2;
      } else experiments.push_back(arg);
    }
    if (experiments.empty()) {
      usage(std::cerr);
      return 2;
    }
    if (options.compare && experiments.size() < 2) throw er_print::CommandError("-compare needs two experiments");
    if (directory.empty()) {
      std::filesystem::path first = std::filesystem::path(experiments.front()).lexically_normal();
      if (!first.has_filename()) first = first.parent_path();
      directory = first.replace_extension(".html").filename().string();
    }
    std::ostringstream buffer;
    er_print::Session session(analysis::AnalysisPlugins::for_command_line(plugins), buffer);
    for (const std::string& path : experiments) session.open_experiment(path);
    for (const auto& experiment : session.experiments())
      for (const std::string& warning : experiment->warnings())
        std::cerr << "er_html: " << experiment->path().string() << ": " << warning << "\n";
    if (!metrics.empty()) session.set_metrics(metrics);
    options.experiments = experiments;
    er_html::write_report(directory, er_html::report_data(session, buffer, options));
    std::cout << "er_html: wrote " << (std::filesystem::path(directory) / "index.html").string() << "\n";
    return 0;
  } catch (const analysis::FormatError& e) {
    std::cerr << "er_html: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "er_html: " << e.what() << "\n";
    return 2;
  }
}
