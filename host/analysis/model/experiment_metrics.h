// What an experiment's plugins measure, added to a session's metrics: each
// plugin first learns its metrics from the options the experiment recorded
// (configure), then its metrics, those its interval split shares out and
// those it derives join the registry, and each data file learns where its
// plugin's metrics start. Kept apart from reading the experiment, so that
// opening one never changes what another measures until it is registered.
#pragma once

#include "experiment.h"
#include "metric_registry.h"

namespace lumen::analysis {

// Throws FormatError when a plugin refuses the recorded options or derives
// a metric it cannot.
void register_metrics(Experiment& experiment, MetricRegistry& registry);

}  // namespace lumen::analysis
