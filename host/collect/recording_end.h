// What collect does to an experiment once its process is done with it
// (ended, or detached from): name the kernel's frames while this boot's
// kernel is the one that ran it, and archive the load objects (-A).
#pragma once

#include <filesystem>

#include "experiment_metadata.h"

namespace lumen::collect {

// Whether any process's log says the size limit stopped its recording.
bool size_limit_reached(const std::filesystem::path& experiment);

void finish_recording(const std::filesystem::path& experiment, const metadata::CollectionPlan& plan);

}  // namespace lumen::collect
