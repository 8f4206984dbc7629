// The one-file case, the three-file form and kind detection for `validate`.
#include <catch2/catch.hpp>

#include "config/config_test_util.h"
#include "config/loader.h"

using namespace shardplan;
using shardplan::testing::problems_of;
using shardplan::testing::write_scratch;

using Lines = std::vector<std::string>;

namespace {
const char* kModel = R"(name: m
modules:
  - path: ebc
    tables: [{name: t1, num_embeddings: 100, embedding_dim: 16}]
planner:
  proposers: [uniform]
)";
const char* kTopology = "world_size: 2\n";
const char* kPlanner = "proposers: [greedy]\n";
}  // namespace

TEST_CASE("planner options: planner file, else the model's planner key, else defaults", "[config]") {
  std::string model = write_scratch("in_model.yaml", kModel);
  std::string topology = write_scratch("in_topo.yaml", kTopology);
  std::string planner = write_scratch("in_planner.yaml", kPlanner);
  CHECK(load_inputs(model, topology, planner).planner.proposers == std::vector<ProposerKind>{ProposerKind::kGreedy});
  CHECK(load_inputs(model, topology, std::nullopt).planner.proposers ==
        std::vector<ProposerKind>{ProposerKind::kUniform});
  std::string plain = write_scratch("in_plain.yaml",
                                    "modules: [{path: e, tables: [{name: t, num_embeddings: 1, embedding_dim: 4}]}]\n");
  CHECK(load_inputs(plain, topology, std::nullopt).planner.proposers == PlannerOptions{}.proposers);
}

TEST_CASE("load_inputs reports the problems of every file together", "[config]") {
  std::string model = write_scratch("in_bad_model.yaml", "modules: 3\n");
  std::string topology = write_scratch("in_bad_topo.yaml", "world_size: -2\n");
  std::string planner = write_scratch("in_bad_planner.yaml", "proposers: [greedee]\n");
  CHECK(problems_of([&] { load_inputs(model, topology, planner); }) ==
        Lines{"in_bad_model.yaml:1:10: modules: expected a list of modules, found '3'",
              "in_bad_topo.yaml:1:13: world_size: expected a positive integer, found -2",
              "in_bad_planner.yaml:1:13: proposers[0]: unknown proposer 'greedee', did you mean 'greedy'?"});
}

TEST_CASE("case key paths start at the section; the case planner key wins", "[config]") {
  std::string bad = write_scratch("bad_case.json", R"({
  "model": {"modules": [{"path": "e", "tables": [{"name": "t", "num_embeddings": 1, "embedding_dim": 4}]}]},
  "topology": {"world_size": 4, "custom": {"hbm_cap": [1, 2, 3]}},
  "planer": {}
})");
  CHECK(problems_of([&] { load_case(bad); }) ==
        Lines{"bad_case.json:3:55: topology.custom.hbm_cap: expected 4 entries (one per rank, world_size), found 3",
              "bad_case.json:4:3: planer: unknown key 'planer', did you mean 'planner'?"});
  std::string good = write_scratch("good_case.json", R"({
  "model": {"modules": [{"path": "e", "tables": [{"name": "t", "num_embeddings": 1, "embedding_dim": 4}]}],
            "planner": {"proposers": ["uniform"]}},
  "topology": {"world_size": 4},
  "planner": {"proposers": ["greedy_sum"]}
})");
  CHECK(load_case(good).planner.proposers == std::vector<ProposerKind>{ProposerKind::kGreedySum});
  CHECK(problems_of([&] { load_case(write_scratch("no_topo.json", R"({"model": {}})")); }) ==
        Lines{"no_topo.json:1:1: missing required key 'topology'",
              "no_topo.json:1:11: model: missing required key 'modules'"});
}

TEST_CASE("validate recognises the kind of a file from its top-level keys", "[config]") {
  CHECK(validate_file(write_scratch("k_model.yaml", kModel), std::nullopt) == InputKind::kModel);
  CHECK(validate_file(write_scratch("k_topo.yaml", kTopology), std::nullopt) == InputKind::kTopology);
  CHECK(validate_file(write_scratch("k_planner.yaml", kPlanner), std::nullopt) == InputKind::kPlanner);
  CHECK(validate_file(write_scratch("k_planner2.yaml", "is_inference: true\n"), std::nullopt) == InputKind::kPlanner);
  // A typo in the one telling key still leaves enough to recognise the kind.
  CHECK(problems_of([&] {
          validate_file(write_scratch("k_typo.yaml", "world_sise: 2\nhbm_cap: 1\n"), std::nullopt);
        }) == Lines{"k_typo.yaml:1:1: world_sise: unknown key 'world_sise', did you mean 'world_size'?",
                    "k_typo.yaml:1:1: missing required key 'world_size'"});
  CHECK(problems_of([&] { validate_file(write_scratch("k_none.yaml", "foo: 1\n"), std::nullopt); }) ==
        Lines{"k_none.yaml:1:1: cannot tell what this file holds: expected top-level keys model and topology (case), "
              "modules (model), world_size (topology) or proposers/partitioner/storage_reservation (planner); use "
              "--kind to say"});
  // Forcing the kind checks the file as that kind.
  CHECK(problems_of([&] { validate_file(write_scratch("k_forced.yaml", kTopology), InputKind::kModel); }) ==
        Lines{"k_forced.yaml:1:1: world_size: unknown key 'world_size' (known keys: name, batch_size, modules, "
              "dense, constraints, planner)",
              "k_forced.yaml:1:1: missing required key 'modules'"});
}
