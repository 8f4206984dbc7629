// The normalised inputs a plan file hashes: the same inputs written differently
// (YAML or JSON, key order, a default spelt out by a flag) hash the same; any
// change of a value the planner reads changes the hash.
#include <catch2/catch.hpp>

#include "common/sha256.h"
#include "config/canonical_input.h"
#include "config/config_test_util.h"
#include "config/loader.h"
#include "config/planner_overrides.h"

namespace shardplan {
namespace {

using testing::write_scratch;

const char* kJsonCase = R"({"model": {"name": "m", "batch_size": 256, "modules": [{"path": "ebc", "tables": [)"
                        R"({"name": "t0", "num_embeddings": 1000, "embedding_dim": 16}]}],)"
                        R"( "constraints": {"t0": {"pooling_factors": [2.0]}}},)"
                        R"( "topology": {"world_size": 2, "hbm_cap": "1 GiB"}, "planner": {"proposers": ["greedy"]}})";

const char* kYamlCase =
    "planner:\n"
    "  proposers: [greedy]\n"
    "topology: {hbm_cap: 1073741824, world_size: 2}\n"
    "model:\n"
    "  batch_size: 256\n"
    "  name: m\n"
    "  constraints:\n"
    "    t0: {pooling_factors: [2]}\n"
    "  modules:\n"
    "    - path: ebc\n"
    "      tables:\n"
    "        - {embedding_dim: 16, num_embeddings: 1000, name: t0}\n";

TEST_CASE("inputs hash: the same inputs in other words hash the same", "[config][canonical]") {
  PlanningInput json = load_case(write_scratch("canonical.json", kJsonCase));
  PlanningInput yaml = load_case(write_scratch("canonical.yaml", kYamlCase));
  CHECK(canonical_input_text(json) == canonical_input_text(yaml));
  CHECK(inputs_sha256(json) == inputs_sha256(yaml));
  CHECK(inputs_sha256(json) == sha256_hex(canonical_input_text(json)));
  // A flag that sets what the file already says changes nothing.
  PlannerOverrides same;
  same.batch_size = 256;
  apply_planner_overrides(same, yaml);
  CHECK(inputs_sha256(yaml) == inputs_sha256(json));
  // torchrec's "not given" spellings: batch_size 0 is BATCH_SIZE (512), local_world_size 0
  // is world_size, an empty constraint list is no constraint.
  PlanningInput zeros = json, explicit_defaults = json;
  zeros.model.batch_size = 0;
  explicit_defaults.model.batch_size = 512;
  zeros.topology.local_world_size = 0;
  explicit_defaults.topology.local_world_size = 2;
  zeros.model.constraints["t0"].sharding_types = std::vector<ShardingType>{};
  CHECK(inputs_sha256(zeros) == inputs_sha256(explicit_defaults));
}

TEST_CASE("inputs hash: any value the planner reads changes it", "[config][canonical]") {
  const PlanningInput base = load_case(write_scratch("canonical-base.json", kJsonCase));
  const std::string hash = inputs_sha256(base);
  PlanningInput batch = base;
  batch.model.batch_size = 512;
  CHECK(inputs_sha256(batch) != hash);
  PlanningInput cap = base;
  cap.topology.hbm_cap = std::int64_t{2} << 30;
  CHECK(inputs_sha256(cap) != hash);
  PlanningInput pooling = base;
  pooling.model.constraints["t0"].pooling_factors = {2.5};
  CHECK(inputs_sha256(pooling) != hash);
  PlanningInput proposers = base;
  proposers.planner.proposers = {ProposerKind::kUniform};
  CHECK(inputs_sha256(proposers) != hash);
  // Where the inputs came from is no input.
  PlanningInput renamed = base;
  renamed.source = "elsewhere.json";
  CHECK(inputs_sha256(renamed) == hash);
}

}  // namespace
}  // namespace shardplan
