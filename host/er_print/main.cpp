// er_print [-command [args]]... [--format=text|csv|json] experiment...
// Without commands, an interactive prompt reads commands from stdin.
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "command_table.h"
#include "format_error.h"
#include "install_layout.h"
#include "session.h"

using namespace lumen;
using namespace lumen::er_print;

namespace {

struct Invocation {
  Command command;
  std::vector<std::string> arguments;
};

std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  bool in_word = false;
  for (char c : line) {
    if (quote != 0) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

void run(Session& session, const Invocation& invocation) {
  invocation.command.run(session, invocation.arguments);
}

int interactive(Session& session) {
  const bool prompt = isatty(STDIN_FILENO);
  std::string line;
  int status = 0;
  while ((prompt && std::cout << "(er_print) " << std::flush), std::getline(std::cin, line)) {
    const auto words = split_words(line);
    if (words.empty() || words[0][0] == '#') continue;
    if (words[0] == "quit" || words[0] == "exit") break;
    try {
      const std::optional<Command> command = find_command(words[0], session.plugins());
      if (!command) throw CommandError("unknown command '" + words[0] + "' (try help)");
      if (words.size() - 1 != command->argument_count)
        throw CommandError(command->name + " takes " + std::to_string(command->argument_count) + " argument(s)");
      run(session, {*command, std::vector<std::string>(words.begin() + 1, words.end())});
    } catch (const std::exception& e) {
      std::cerr << "er_print: " << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Session session(analysis::AnalysisPlugins::for_command_line(std::vector<std::string>(argv + 1, argv + argc)),
                    std::cout);
    std::vector<Invocation> invocations;
    std::vector<std::string> experiments;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg.rfind("--format=", 0) == 0) {
        session.set_format(arg.substr(9));
        continue;
      }
      if (arg == "--help" || arg == "-help") {
        invocations.push_back({*find_command("help", session.plugins()), {}});
        continue;
      }
      if (arg.size() > 1 && arg[0] == '-') {
        const std::optional<Command> command = find_command(arg.substr(1), session.plugins());
        if (!command) throw CommandError("unknown command '" + arg + "' (er_print -help lists them)");
        Invocation invocation{*command, {}};
        for (size_t n = 0; n < command->argument_count; ++n) {
          if (i + 1 >= argc) throw CommandError(arg + " needs " + command->arguments);
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
    if (invocations.empty()) return interactive(session);
    for (const Invocation& invocation : invocations) run(session, invocation);
    return 0;
  } catch (const analysis::FormatError& e) {
    std::cerr << "er_print: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "er_print: " << e.what() << "\n";
    return 2;
  }
}
