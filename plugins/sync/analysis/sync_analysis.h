// The sync plugin's analysis half: what its two files share.
#pragma once

#include <lumen/analysis_plugin.h>

namespace lumen::sync {

// er_print -syncobjects.
extern const lumen_view_def kSyncObjectsView;

}  // namespace lumen::sync
