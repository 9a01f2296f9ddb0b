// er_print -exp_list (the experiments open: founders and descendants) and
// -metric_list (the metrics they offer), as documents for the renderer.
#pragma once

#include <memory>
#include <vector>

#include "document.h"
#include "experiment.h"
#include "metric_registry.h"

namespace lumen::analysis {

Document experiment_list(const std::vector<std::unique_ptr<Experiment>>& experiments);
// -host_list: each host (numbered as -host_select and HOSTID take them),
// how many experiments and which MPI ranks were recorded there.
Document host_list(const std::vector<std::unique_ptr<Experiment>>& experiments);
Document metric_list(const MetricRegistry& registry);

}  // namespace lumen::analysis
