// Every problem in a model file is reported in one run, each with its position,
// key path and an exact message.
#include <catch2/catch.hpp>

#include "config/config_test_util.h"
#include "config/loader.h"

using namespace shardplan;
using shardplan::testing::problems_of;
using shardplan::testing::write_scratch;

using Lines = std::vector<std::string>;

TEST_CASE("a model with many problems reports all of them together", "[config]") {
  std::string path = write_scratch("bad_model.yaml", R"(name: bad
batch_size: abc
modules:
  - path: sparse.ebc
    kind: embedding_bags
    tables:
      - name: t_user
        num_embedings: 100
        embedding_dim: -5
      - name: t_item
        num_embeddings: 99999999999999999999999
        embedding_dim: 64
        data_type: fp33
        feature_names: [a, b]
  - path: seq.ec
    kind: embedding
    tables:
      - {name: s1, num_embeddings: 10, embedding_dim: 32}
      - {name: s2, num_embeddings: 10, embedding_dim: 64}
      - {name: t_user, num_embeddings: 10, embedding_dim: 32}
constraints:
  t_usr:
    sharding_types: [row_wise, row_wsie]
  t_item:
    pooling_factors: [1.0]
    batch_sizes: [1, 2, 3]
    cache_params: {load_factor: 1.5}
)");
  CHECK(problems_of([&] { load_model(path); }) ==
        Lines{
            "bad_model.yaml:2:13: batch_size: expected a non-negative integer, found 'abc'",  // 0 is torchrec's default
            "bad_model.yaml:5:11: modules[0].kind: unknown module kind 'embedding_bags', did you mean 'embedding_bag'?",
            "bad_model.yaml:7:9: modules[0].tables[0]: missing required key 'num_embeddings'",
            "bad_model.yaml:8:9: modules[0].tables[0].num_embedings: unknown key 'num_embedings', did you mean "
            "'num_embeddings'?",
            "bad_model.yaml:9:24: modules[0].tables[0].embedding_dim: expected a positive integer, found -5",
            "bad_model.yaml:11:25: modules[0].tables[1].num_embeddings: integer out of range (beyond 64 bits), found "
            "'99999999999999999999999'",
            "bad_model.yaml:13:20: modules[0].tables[1].data_type: unknown data type 'fp33', did you mean 'fp32'?",
            "bad_model.yaml:19:9: modules[1].tables[1].embedding_dim: an embedding (EmbeddingCollection) module "
            "needs one embedding_dim for all its tables: 's2' has 64, 's1' has 32",
            "bad_model.yaml:20:9: modules[1].tables[2].name: duplicate table name 't_user' (first at line 7)",
            "bad_model.yaml:22:3: constraints.t_usr: no table named 't_usr' in the model, did you mean 't_user'?",
            "bad_model.yaml:23:32: constraints.t_usr.sharding_types[1]: unknown sharding type 'row_wsie', did you "
            "mean 'row_wise'?",
            "bad_model.yaml:25:22: constraints.t_item.pooling_factors: expected 2 entries (one per feature of table "
            "'t_item': a, b), found 1",
            "bad_model.yaml:26:18: constraints.t_item.batch_sizes: expected 2 entries (one per feature of table "
            "'t_item': a, b), found 3",
            "bad_model.yaml:27:33: constraints.t_item.cache_params.load_factor: expected a load factor in (0, 1], "
            "found 1.5",
        });
}

TEST_CASE("model errors in JSON carry JSON positions", "[config]") {
  std::string path = write_scratch("m.json", R"({
  "modules": [
    {"path": "ebc", "tables": [
      {"name": "t1", "num_embeddings": "100", "embedding_dim": 8},
      {"name": "t2", "num_embeddings": 0, "embedding_dim": 8.5}
    ]},
    {"path": "ebc", "tables": [{"name": "t3", "num_embeddings": 1, "embedding_dim": 8}]}
  ],
  "dense": {"parameters": -1, "data_type": "fp64"},
  "constraints": {
    "t1": {"compute_kernels": ["fused_uvm_cache"], "device_group": "gpu", "num_poolings": [1, 2]},
    "t3": {"min_partition": 0, "is_weighted": "yes", "bounds_check_mode": "warn"},
    "zzz": {}
  }
})");
  CHECK(problems_of([&] { load_model(path); }) ==
        Lines{
            "m.json:4:40: modules[0].tables[0].num_embeddings: expected a positive integer, found \"100\"",
            "m.json:5:40: modules[0].tables[1].num_embeddings: expected a positive integer, found 0",
            "m.json:5:60: modules[0].tables[1].embedding_dim: expected a positive integer, found '8.5'",
            "m.json:7:5: modules[1].path: duplicate module path 'ebc' (first at line 3)",
            "m.json:9:27: dense.parameters: expected a non-negative integer, found -1",
            // fp32 and fp16 are equally close; the first in the name table wins.
            "m.json:9:44: dense.data_type: unknown data type 'fp64', did you mean 'fp32'?",
            "m.json:11:32: constraints.t1.compute_kernels[0]: unknown compute kernel 'fused_uvm_cache', did you "
            "mean 'fused_uvm_caching'?",
            "m.json:11:68: constraints.t1.device_group: unknown device 'gpu', did you mean 'cpu'?",
            "m.json:11:91: constraints.t1.num_poolings: expected 1 entry (one per feature of table 't1': t1), found 2",
            // min_partition 0 is torchrec's "not given" (docs/parity.md, inputs torchrec accepts).
            "m.json:12:47: constraints.t3.is_weighted: expected true or false, found \"yes\"",
            "m.json:12:75: constraints.t3.bounds_check_mode: unknown bounds check mode 'warn' (expected "
            "one of: none, warning, fatal, ignore)",
            "m.json:13:5: constraints.zzz: no table named 'zzz' in the model",
        });
}

TEST_CASE("missing required model keys and wrong container types", "[config]") {
  CHECK(problems_of([&] { load_model(write_scratch("empty_modules.yaml", "name: x\nmodules: []\n")); }) ==
        Lines{"empty_modules.yaml:2:10: modules: expected at least one module"});
  CHECK(problems_of([&] { load_model(write_scratch("no_modules.yaml", "name: x\nbatch_size: 8\n")); }) ==
        Lines{"no_modules.yaml:1:1: missing required key 'modules'"});
  CHECK(problems_of([&] { load_model(write_scratch("scalar.yaml", "just a string\n")); }) ==
        Lines{"scalar.yaml:1:1: expected a mapping, found 'just a string'"});
  CHECK(problems_of([&] {
          load_model(write_scratch("tables_map.yaml", "modules:\n  - path: a\n    tables: {name: t}\n"));
        }) == Lines{"tables_map.yaml:3:13: modules[0].tables: expected a list of tables, found a mapping"});
  CHECK(problems_of([&] {
          load_model(write_scratch("no_path.yaml",
                                   "modules:\n  - tables:\n      - {name: t, num_embeddings: 1, embedding_dim: 4, "
                                   "feature_names: []}\n"));
        }) == Lines{"no_path.yaml:2:5: modules[0]: missing required key 'path'"});  // feature_names: [] = not given
}

TEST_CASE("duplicate fqns and duplicate keys are reported", "[config]") {
  // "a" + "b.c" and "a.b" + "c" are two table names but one fqn "a.b.c".
  std::string path = write_scratch("fqn.yaml", R"(modules:
  - path: a
    tables:
      - {name: b.c, num_embeddings: 1, embedding_dim: 4}
  - path: a.b
    tables:
      - {name: c, num_embeddings: 1, embedding_dim: 4, embedding_dim: 8}
)");
  CHECK(problems_of([&] { load_model(path); }) ==
        Lines{"fqn.yaml:7:9: modules[1].tables[0].name: duplicate fqn 'a.b.c' (first at line 4)",
              "fqn.yaml:7:56: modules[1].tables[0].embedding_dim: duplicate key 'embedding_dim' (first given at "
              "line 7)"});
}

TEST_CASE("a valid model keeps what was written and fills only feature_names", "[config]") {
  std::string path = write_scratch("ok.yaml", R"(name: ok
modules:
  - path: sparse.ebc
    tables:
      - {name: t1, num_embeddings: 1e6, embedding_dim: 64, data_type: fp16}
      - {name: t2, num_embeddings: 10, embedding_dim: 8, feature_names: [f1, f2]}
dense: {parameters: 1000}
constraints:
  t2: {pooling_factors: [2, 3.5], sharding_types: [table_wise]}
)");
  ModelConfig model = load_model(path);
  CHECK(model.batch_size == 512);
  REQUIRE(model.modules.size() == 1);
  CHECK(model.modules[0].kind == ModuleKind::kEmbeddingBag);
  CHECK(model.modules[0].tables[0].num_embeddings == 1000000);
  CHECK(model.modules[0].tables[0].data_type == DataType::kFp16);
  CHECK(model.modules[0].tables[0].feature_names == std::vector<std::string>{"t1"});
  CHECK(model.modules[0].tables[1].feature_names == std::vector<std::string>{"f1", "f2"});
  CHECK(model.modules[0].tables[1].pos.line == 6);
  CHECK(model.dense.parameters == 1000);
  CHECK(model.constraints.at("t2").pooling_factors == std::vector<double>{2.0, 3.5});
  CHECK(*model.constraints.at("t2").sharding_types == std::vector<ShardingType>{ShardingType::kTableWise});
  CHECK_FALSE(model.constraints.at("t2").min_partition.has_value());
  CHECK_FALSE(model.planner.has_value());
}
