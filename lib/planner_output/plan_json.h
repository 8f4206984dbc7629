// The plan file (docs/formats/plan-file.md): `plan`, `per_rank` and `reserved` use the goldens'
// field names; `plan` maps one-to-one onto torchrec's ParameterSharding.
// Schema: schemas/plan.schema.json. Output is deterministic (model order, fixed
// float format), and carries no timing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "planner/run.h"
#include "planner/types.h"

namespace shardplan {

struct PlanFileInput {
  std::string model_name;
  const Topology* topology = nullptr;                 // before reservation
  const ReservationResult* reservation = nullptr;     // capacities left for the tables
  const std::vector<ShardingOption>* plan = nullptr;  // one option per table, ranks set
  long num_proposals = 0;
  long num_plans = 0;
  double perf_rating = 0;  // NoopPerfModel rating of the plan
  // SHA-256 of the normalised inputs (config/canonical_input.h); when set, the file
  // carries "shardplan": {"version", "inputs_sha256"} after "schema".
  std::string inputs_sha256;
  // canonical_input_text of the inputs; when set with inputs_sha256, written as
  // "shardplan".inputs (what `diff` lists field by field).
  std::string inputs_text;
  // The lower bound on the max-rank perf (summary.lower_bound), or null for none.
  const LowerBound* bound = nullptr;
};

// "rank:3/cuda:3" as torchrec's placement() writes it.
std::string placement_string(ComputeDevice device, int rank, int local_world_size);

nlohmann::ordered_json plan_to_json(const PlanFileInput& input);
// plan_to_json(input).dump(2) + "\n", byte for byte, without building the whole tree.
std::string plan_to_text(const PlanFileInput& input);

// The plan file of a successful run (run.ok()) as a tree (what the Python package
// returns), and as the text `shardplan plan` writes; `inputs_sha256` and
// `inputs_text` as in PlanFileInput.
nlohmann::ordered_json plan_file_json(const PlanRun& run, const std::string& model_name,
                                      const std::string& inputs_sha256 = {}, const std::string& inputs_text = {});
std::string plan_file_text(const PlanRun& run, const std::string& model_name, const std::string& inputs_sha256 = {},
                           const std::string& inputs_text = {});

}  // namespace shardplan
