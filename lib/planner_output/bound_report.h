// The lower bound and the bottleneck as the outputs show them: a JSON object for
// the plan file's summary and --stats json, and one-line texts for the human
// summary and `explain`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "planner/bounds/bottleneck.h"
#include "planner/bounds/lower_bound.h"

namespace shardplan {

// {"value", "gap", "binding", "bounds": {name: value, ...}} for a plan of rating
// `plan_rating`; gap is (plan - bound) / bound, null where undefined (bound 0).
// An infeasible bound (no plan exists) has null value and gap.
nlohmann::ordered_json bound_json(const LowerBound& bound, double plan_rating);

// "lower bound 12.345 ms (forced_load), plan 13.000 ms, gap 5.3%".
std::string bound_line(const LowerBound& bound, double plan_rating);

// "bottleneck: rank 3 at 13.000 ms (mean 10.100 ms, 4 tables); heaviest tables:" and
// then one line per table, "  ebc.t1 6.000 ms (table_wise, fused)"; each line ends in "\n".
std::string bottleneck_text(const Bottleneck& bottleneck);

// {"rank", "perf", "mean_perf", "num_tables", "tables": [{"fqn", "perf", "sharding_type",
// "compute_kernel", "shards"}]}; rank null when no shard is placed.
nlohmann::ordered_json bottleneck_json(const Bottleneck& bottleneck);

}  // namespace shardplan
