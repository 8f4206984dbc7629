// The plan file (docs/formats/plan-file.md): `plan`, `per_rank` and `reserved` use the goldens'
// field names; `plan` maps one-to-one onto torchrec's ParameterSharding.
// Schema: schemas/plan.schema.json. Output is deterministic (model order, fixed
// float format), and carries no timing.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
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

// plan_to_text in parts that can be written at the same time and joined in order:
// plan_text_head(in), then append_plan_text_tables over consecutive runs of
// plan_text_tables(*in.plan) (any split), then plan_text_tail(in). Most of a large
// plan's text is its tables (a shard is about 500 bytes).
struct PlanTextTable {
  const ShardingOption* option = nullptr;
  bool first_of_module = false;  // opens its module's mapping
  bool last_of_module = false;   // closes it
  bool last_module = false;      // of the last module of the plan
};
// Everything before the first table: schema, tool and inputs, topology, `"plan": {`.
std::string plan_text_head(const PlanFileInput& in);
// The tables in the order the file lists them: grouped by module path, modules in
// order of first appearance.
std::vector<PlanTextTable> plan_text_tables(const std::vector<ShardingOption>& plan);
void append_plan_text_tables(std::string& out, std::span<const PlanTextTable> tables, const Topology& topo);
// Everything after the last table: per-rank loads, reservation, memory, summary.
std::string plan_text_tail(const PlanFileInput& in);
// About the bytes the tables' text takes (for reserving).
std::size_t plan_text_size_estimate(const std::vector<ShardingOption>& tables);

// The PlanFileInput of a successful run (run.ok()).
PlanFileInput plan_file_input(const PlanRun& run, const std::string& model_name, const std::string& inputs_sha256,
                              const std::string& inputs_text);

// The plan file of a successful run (run.ok()) as a tree (what the Python package
// returns), and as the text `shardplan plan` writes; `inputs_sha256` and
// `inputs_text` as in PlanFileInput.
nlohmann::ordered_json plan_file_json(const PlanRun& run, const std::string& model_name,
                                      const std::string& inputs_sha256 = {}, const std::string& inputs_text = {});
std::string plan_file_text(const PlanRun& run, const std::string& model_name, const std::string& inputs_sha256 = {},
                           const std::string& inputs_text = {});

}  // namespace shardplan
