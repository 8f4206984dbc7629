// The text of a failed planning run, rendered from the structured failure the
// planner returns (planner.h's PlanFailure): what `plan` prints after "error: ".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "planner/run.h"

namespace shardplan {

// A user-facing explanation of a failed run: torchrec's error kind, which tables
// did not fit, what their smallest option needs, the largest free rank, and
// numbered fixes. "" for a run that did not fail.
std::string explain_failure(const PlanRun& run);

// The numbered fixes explain_failure lists, one string each without its number
// (for the Python binding's PlannerError.fixes); empty for a run that did not
// fail, failed in enumeration, or at a stage with no fixes.
std::vector<std::string> failure_fixes(const PlanRun& run);

// A failed run as JSON, for `--stats json`, whose stream must hold JSON only:
// {"kind": torchrec's error type (INSUFFICIENT_STORAGE, STRICT_CONSTRAINTS, PARTITION,
// OTHER) or NO_SHARDING_OPTION (enumeration failed), "stage": reservation | proposer |
// plan | crash | enumeration, "message": explain_failure's text}.
nlohmann::ordered_json failure_json(const PlanRun& run);

// Bad input or usage as JSON: {"kind": "BAD_INPUT", "message": first line,
// "diagnostics": [{"file", "line", "col", "key_path", "message"}, ...]}.
nlohmann::ordered_json input_error_json(const InputError& error);

}  // namespace shardplan
