// Finding the command a user meant: the exact name, or an unambiguous
// prefix of one (gprofng accepts "-func" for "-functions"); otherwise an
// error that names the candidates or the nearest names.
#pragma once

#include <string>

#include "command_table.h"

namespace lumen::er_print {

// The command `word` (without its dash) names. Throws CommandError for an
// unknown or ambiguous name, naming it as the user wrote it (`written`,
// "-bogus" on the command line) with "did you mean" suggestions.
Command resolve_command(const std::string& word, const std::string& written, const analysis::AnalysisPlugins& plugins);

}  // namespace lumen::er_print
