// er_print's output must not depend on how many threads decode the data
// files: these run the same views with one thread reading each file in one
// pass and with several threads reading it in parts (down to one block a
// part), and compare them byte for byte.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "process_runner.h"

namespace lumen::test {

// er_print --threads THREADS VIEWS... EXPERIMENT, the files cut into parts
// of PART_BLOCKS blocks (LUMEN_ANALYSIS_PART_BLOCKS).
ProcessResult er_print_on_threads(const std::filesystem::path& experiment, const std::vector<std::string>& views,
                                  const std::string& threads, const std::string& part_blocks);

// The views succeed with nothing on stderr (no progress off a terminal)
// and read the same on 1, 2, 3 and 4 threads, in one pass and in parts of
// one block and of the default size.
void expect_same_on_any_threads(const std::filesystem::path& experiment, const std::vector<std::string>& views);

}  // namespace lumen::test
