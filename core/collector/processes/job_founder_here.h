// A rank started on another host by a launcher's daemon (which ssh
// started, out of collect's reach) records into the job's founder at the
// path collect gave (LUMEN_MPI_JOB). Where that path is a node-local
// directory, the founder is not there: the first rank of the job on this
// host founds it, from the plan and the job key collect forwarded with it
// (LUMEN_MPI_PLAN, LUMEN_MPI_JOB_KEY), as a founder of the job holding no
// process; `er_cp` then gathers its ranks into the launcher's founder.
#pragma once

#include <string>

namespace lumen::collector {

// Not signal-safe. Whether `founder` holds the job's plan (made here now
// if need be; the ranks of one host may race to make it, and each writes
// the same files by rename).
bool job_founder_here(const std::string& founder);

}  // namespace lumen::collector
