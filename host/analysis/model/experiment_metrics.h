// What an experiment's plugins measure, added to a session's metrics: each
// plugin first learns this experiment's metrics from its recorded options and
// header facts (configure), then those metrics, those its interval split
// shares out and those it derives join the registry, and each data file
// learns where each of its values goes. Kept apart from reading the experiment, so that
// opening one never changes what another measures until it is registered.
#pragma once

#include "experiment.h"
#include "metric_registry.h"

namespace lumen::analysis {

// Throws FormatError when a plugin refuses the recorded options or derives
// a metric it cannot.
void register_metrics(Experiment& experiment, MetricRegistry& registry);

}  // namespace lumen::analysis
