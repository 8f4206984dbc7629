// A plan file written by `shardplan plan` (schemas/plan.schema.json), read back as
// typed data for `shardplan show`, `diff` and `validate`. A JSON plan is read into
// the compact JSON tree (document/json_value_tree.h), a YAML one into yaml-cpp's;
// one reader reads both (plan_file_tree.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/names.h"

namespace shardplan {

// Perf of a shard or rank in ms, by part, as the plan file stores it.
struct PlanFilePerf {
  double fwd_compute = 0, fwd_comms = 0, bwd_compute = 0, bwd_comms = 0, prefetch_compute = 0, total = 0;
};

struct PlanFileStorage {
  std::int64_t hbm = 0, ddr = 0;  // bytes
};

struct PlanFileShard {
  int rank = 0;
  std::vector<std::int64_t> offsets;  // [row, column]
  std::vector<std::int64_t> sizes;    // [rows, columns]
  PlanFilePerf perf;
  PlanFileStorage storage;
};

struct PlanFileTable {
  std::string module;  // module path
  std::string name;
  ShardingType sharding_type = ShardingType::kTableWise;
  ComputeKernel compute_kernel = ComputeKernel::kFused;
  std::vector<int> ranks;
  std::vector<PlanFileShard> shards;
  PlanFileStorage total_storage;
  double total_perf = 0;
  int line = 0, column = 0;  // 1-based position of the table's entry in the file (0: not from a file)

  std::string fqn() const { return module + "." + name; }
};

struct PlanFileRank {
  PlanFileStorage storage;
  PlanFilePerf perf;
  int num_shards = 0;
};

struct PlanFileSummary {
  double perf_rating = 0;
  double max_rank_perf = 0;
  std::int64_t max_rank_hbm = 0;
  std::int64_t total_hbm = 0, total_ddr = 0;
  std::int64_t num_proposals = 0, num_plans = 0;
  std::string storage_reservation;
  // summary.lower_bound (absent in older plan files): the bound on the max-rank
  // perf, the gap (plan - bound) / bound, and which bound binds.
  std::optional<double> lower_bound;
  std::optional<double> lower_bound_gap;
  std::string lower_bound_binding;
};

// One rank's memory on the one basis of every output (planner/memory_basis.h).
struct PlanFileMemory {
  PlanFileStorage used, usable;  // bytes
};

// One scalar of the normalised inputs ("shardplan".inputs), flattened: `path` names
// it as `topology.hbm_cap` or `model.modules[sparse.ebc].tables[t_user].num_embeddings`
// (list items that have a "name" or "path" are named by it, others by index).
struct PlanFileInputField {
  std::string path;
  std::string value;  // the JSON text: 85899345920, "row_wise", null, true
};

struct PlanFile {
  std::string file;  // as named on the command line
  std::string model;
  // "shardplan": which tool wrote it and from what (absent in older plan files).
  std::optional<std::string> tool_version;
  std::optional<std::string> inputs_sha256;
  // "shardplan".inputs flattened in file order; unset in plan files without it.
  std::optional<std::vector<PlanFileInputField>> inputs;
  int world_size = 0;
  int local_world_size = 0;
  std::string compute_device;
  std::vector<PlanFileStorage> devices;   // capacities before the reservation
  std::vector<PlanFileStorage> reserved;  // left for the tables after it
  std::vector<PlanFileTable> tables;      // in file order
  std::vector<PlanFileRank> ranks;
  PlanFileSummary summary;
  // "memory": one entry per rank (empty in plan files older than the block).
  std::vector<PlanFileMemory> memory;
};

// Reads and checks a plan file by the rules of schemas/plan.schema.json (required
// and known keys, types, enums, ranks inside the world size), plus the agreements
// the schema cannot state (one per_rank, devices and reserved entry per rank).
// Throws InputError listing every problem, positioned; a file that is not a plan
// at all ("schema" is not "shardplan.plan/v1") gets that one message.
// "-" is stdin.
PlanFile read_plan_file(const std::string& path);
// The same for `text` as if it were the content of `file`.
PlanFile parse_plan_file(const std::string& file, std::string_view text);

// parse_plan_file when `text` is a plan by its top-level keys ("schema" or
// "shardplan", which `shardplan plan` writes and no planner input has); nullopt
// when it is something else (a model, a case...). Throws InputError when the text
// is not well-formed, or is a plan with problems.
std::optional<PlanFile> parse_if_plan_file(const std::string& file, std::string_view text);

}  // namespace shardplan
