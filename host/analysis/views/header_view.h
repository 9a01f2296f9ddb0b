// er_print -header: what each experiment is (target, host, plan, comments,
// how it ended, what the collector reported).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "experiment.h"
#include "view_table.h"

namespace lumen::analysis {

std::string header_view(const std::vector<std::unique_ptr<Experiment>>& experiments, OutputFormat format);

}  // namespace lumen::analysis
