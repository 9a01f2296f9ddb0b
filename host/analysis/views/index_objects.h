// Index objects (er_print -indxobj NAME): the selected events grouped by a
// number each event gives, with their exclusive metrics. Threads, CPUs,
// Samples, Seconds and Hosts (each experiment's, by name) are predefined; -indxobj_define NAME EXPR adds one
// whose number is an expression over the event (event_expression.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "document.h"
#include "event_expression.h"
#include "stack_profile.h"
#include "structure_views.h"

namespace lumen::analysis {

struct IndexObjectType {
  std::string name;         // "Threads"
  std::string row_label;    // "Thread": rows are "Thread 3"
  EventExpression expression;
  bool predefined = false;
};

std::vector<IndexObjectType> predefined_index_objects();

// -indxobj_list: every type with its expression.
Document index_object_list(const std::vector<IndexObjectType>& types);

// -indxobj NAME: one row per value the expression takes, ordered as the
// request sorts (by value when it sorts by name); only exclusive metrics
// exist for index objects, so inclusive and attributed columns show them too.
ViewTable index_object_view(const IndexObjectType& type, const std::vector<std::unique_ptr<Experiment>>& experiments,
                            const MetricRegistry& registry, const ViewRequest& request, const EventFilter& filter);

}  // namespace lumen::analysis
