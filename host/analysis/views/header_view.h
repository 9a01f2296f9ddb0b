// er_print -header: what each experiment is (target, host, plan, comments,
// how it ended, what the collector reported).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "experiment.h"
#include "document.h"

namespace lumen::analysis {

Document header_view(const std::vector<std::unique_ptr<Experiment>>& experiments);

}  // namespace lumen::analysis
