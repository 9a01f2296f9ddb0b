// Commands as lines of text: the interactive prompt (with readline's line
// editing and history when stdin is a terminal), -script FILE, and the
// defaults files ($HOME/.er.rc, then ./.er.rc).
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "session.h"

namespace lumen::er_print {

// Thrown by quit and exit; ends a script, the prompt, or er_print.
struct QuitRequest {};

// Words of a command line; quotes group words.
std::vector<std::string> split_words(const std::string& line);

// Runs one line ("metrics e.user:name"); blank lines and # comments do
// nothing. Throws CommandError (or what the command throws), QuitRequest.
void run_line(Session& session, const std::string& line);

// Runs every line of `file`; a failing line is reported with the file and
// line and the rest still runs; then throws CommandError if any line
// failed. Throws QuitRequest when the script quits.
void run_script_file(Session& session, const std::string& file);

// The prompt: returns the exit status (1 when a command failed).
int interactive(Session& session);

// Reads .er.rc from $HOME and the current directory: the settings commands
// (metrics, sort, name, viewmode, sthresh, limit, source paths; dmetrics and
// dsort as Oracle spells them). Any other line, or a setting that does not
// apply to these experiments, is skipped with a warning naming file and line.
// Without `source_paths`, setpath, addpath and pathmap lines are skipped
// too (the analyzer reads sources only under the roots it was given).
void read_defaults(Session& session, bool source_paths = true, const char* program = "er_print");

}  // namespace lumen::er_print
