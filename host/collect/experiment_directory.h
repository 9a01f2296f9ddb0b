// Choosing and creating the experiment directory: "test.1.er" by default,
// the next free number after that; an existing experiment is reused only
// when the user asked to replace it (-O), and only if it is one.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace lumen::collect {

// Checks the name and directory without creating anything (for -n and for
// refusing bad input before the target starts). Throws UsageError.
// With `overwrite` (-O), an existing experiment of that name is the path
// (remove_replaced_experiment removes it); anything else there is refused.
std::filesystem::path choose_experiment_path(const std::optional<std::string>& name,
                                             const std::optional<std::string>& directory, bool overwrite = false);

// The path -o and -d name (test.1.er by default), checked as
// choose_experiment_path checks it, whether it exists or not: a rank of a
// parallel job may find its job's founder there (job_founder.h).
std::filesystem::path experiment_base_path(const std::optional<std::string>& name,
                                           const std::optional<std::string>& directory);

// The numbered name after `path` (test.3.er: test.4.er); none when its
// name has no number.
std::optional<std::filesystem::path> next_numbered(const std::filesystem::path& path);

// Removes the experiment at `path`, if there is one, for -O.
void remove_replaced_experiment(const std::filesystem::path& path);

// Creates the directory at `path` or, when it appeared meanwhile, at the next
// free number of the same stem. Returns the path created.
std::filesystem::path create_experiment_directory(const std::filesystem::path& path);

}  // namespace lumen::collect
