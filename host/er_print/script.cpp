#include "script.h"

#include <readline/history.h>
#include <readline/readline.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "command_lookup.h"
#include "command_table.h"

namespace lumen::er_print {

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
    } else if (c == ' ' || c == '\t' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) throw CommandError("unterminated quote in '" + line + "'");
  if (in_word) words.push_back(word);
  return words;
}

namespace {

// At the prompt and in scripts a command may be written with its dash.
std::string command_name(const std::string& word) { return word.size() > 1 && word[0] == '-' ? word.substr(1) : word; }

// The last argument takes the rest of the line ("filters thread in 1 && ...").
std::vector<std::string> arguments_for(const Command& command, const std::vector<std::string>& words,
                                       const std::string& line) {
  std::vector<std::string> arguments(words.begin() + 1, words.end());
  if (command.optional_count > 0) {
    if (arguments.size() < command.argument_count || arguments.size() > command.argument_count + command.optional_count)
      throw CommandError(command.name + " takes " + command.arguments);
    return arguments;
  }
  if (command.argument_count == 1 && arguments.size() > 1) {
    const size_t at = line.find(words[0]) + words[0].size();
    std::string rest = line.substr(at);
    rest = rest.substr(rest.find_first_not_of(" \t"));
    const bool quoted = !rest.empty() && (rest[0] == '"' || rest[0] == '\'');
    if (!quoted) arguments = {rest.substr(0, rest.find_last_not_of(" \t\r") + 1)};
  }
  if (arguments.size() != command.argument_count)
    throw CommandError(command.name + " takes " + std::to_string(command.argument_count) + " argument(s)" +
                       (command.arguments.empty() ? "" : ": " + command.arguments));
  return arguments;
}

}  // namespace

// A comment may hold anything, an apostrophe too: it is not split.
static bool is_comment(const std::string& line) {
  const size_t first = line.find_first_not_of(" \t");
  return first != std::string::npos && line[first] == '#';
}

void run_line(Session& session, const std::string& line) {
  if (is_comment(line)) return;
  const auto words = split_words(line);
  if (words.empty()) return;
  const Command command = resolve_command(command_name(words[0]), words[0], session.plugins());
  command.run(session, arguments_for(command, words, line));
}

// A bad line is reported with its file and line and the script carries on,
// as gprofng's does; the script fails at its end if any line did.
void run_script_file(Session& session, const std::string& file) {
  std::ifstream in(file);
  if (!in) throw CommandError("cannot read script '" + file + "'");
  std::string line;
  int failed = 0;
  for (int number = 1; std::getline(in, line); ++number) {
    try {
      run_line(session, line);
    } catch (const QuitRequest&) {
      throw;
    } catch (const std::exception& e) {
      std::cerr << "er_print: " << file << ":" << number << ": " << e.what() << "\n";
      ++failed;
    }
  }
  if (failed > 0)
    throw CommandError("script '" + file + "': " + std::to_string(failed) + (failed == 1 ? " line" : " lines") +
                       " failed");
}

int interactive(Session& session) {
  const bool terminal = isatty(STDIN_FILENO);
  int status = 0;
  for (;;) {
    std::string line;
    if (terminal) {
      char* read = readline("(er_print) ");
      if (read == nullptr) break;
      line = read;
      std::free(read);
      if (!line.empty()) add_history(line.c_str());
    } else if (!std::getline(std::cin, line)) {
      break;
    }
    try {
      run_line(session, line);
    } catch (const QuitRequest&) {
      break;
    } catch (const std::exception& e) {
      std::cerr << "er_print: " << e.what() << "\n";
      status = 1;
    }
    session.flush_views();
  }
  return status;
}

// A defaults file may come from gprofng or the Analyzer (settings such as
// tabs, tlmode or a dmetrics of a metric this experiment lacks): a line that
// does not apply is skipped with one warning naming it; the rest applies.
void read_defaults(Session& session, bool source_paths, const char* program) {
  static const std::set<std::string> kSettings = {"metrics", "dmetrics", "sort",    "dsort",   "name",    "viewmode",
                                                  "sthresh", "limit",    "setpath", "addpath", "pathmap", "format",
                                                  "compare", "en_desc", "dthresh", "cc", "scc", "dcc",
                                                  "object_show", "object_hide", "object_api", "printmode",
                                                  "indxobj_define"};
  std::vector<std::filesystem::path> files;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') files.emplace_back(std::filesystem::path(home) / ".er.rc");
  files.emplace_back(".er.rc");
  std::error_code ec;
  if (files.size() == 2 && std::filesystem::equivalent(files[0], files[1], ec)) files.pop_back();
  for (const auto& file : files) {
    std::ifstream in(file);
    if (!in) continue;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      try {
        if (is_comment(line)) continue;
        auto words = split_words(line);
        if (words.empty()) continue;
        std::string name = command_name(words[0]);
        if (!kSettings.count(name))
          throw CommandError("'" + words[0] + "' is not a setting er_print knows (.er.rc holds metrics, sort, name, viewmode, ...)");
        if (!source_paths && (name == "setpath" || name == "addpath" || name == "pathmap"))
          throw CommandError("'" + name + "' is not taken from a defaults file here: sources are read only under the "
                             "experiments and the directories given with -setpath and -addpath");
        if ((name == "dmetrics" || name == "dsort") && words.size() != 2)
          throw CommandError(name + " takes one argument: a metric list");
        if (name == "dmetrics") session.add_default_metrics(words[1]);
        else if (name == "dsort") session.add_default_sort(words[1]);
        else run_line(session, name + line.substr(line.find(words[0]) + words[0].size()));
      } catch (const std::exception& e) {
        std::cerr << program << ": warning: " << file.string() << ":" << number << ": " << e.what() << "; skipped\n";
      }
    }
  }
}

}  // namespace lumen::er_print
