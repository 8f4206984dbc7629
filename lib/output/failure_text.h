// The text of a failed planning run, rendered from the structured failure the
// planner returns (planner.h's PlanFailure): what `plan` prints after "error: ".
#pragma once

#include <string>

#include "planner/run.h"

namespace shardplan {

// A user-facing explanation of a failed run: torchrec's error kind, which tables
// did not fit, what their smallest option needs, the largest free rank, and
// numbered fixes. "" for a run that did not fail.
std::string explain_failure(const PlanRun& run);

}  // namespace shardplan
