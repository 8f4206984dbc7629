// validate/plan_model_check.h: a plan file against the model it is for. The plan and
// the model are built by hand, so each difference is one the test put there.
#include <catch2/catch.hpp>

#include "validate/plan_model_check.h"

namespace shardplan {
namespace {

ModelConfig plan_check_model() {
  ModelConfig model;
  ModuleConfig ebc;
  ebc.path = "sparse.ebc";
  TableConfig a;
  a.name = "a";
  a.num_embeddings = 100;
  a.embedding_dim = 16;
  TableConfig b = a;
  b.name = "b";
  b.embedding_dim = 8;
  ebc.tables = {a, b};
  model.modules = {ebc};
  return model;
}

PlanFileShard plan_check_shard(int rank, std::int64_t row, std::int64_t col, std::int64_t rows, std::int64_t cols) {
  PlanFileShard shard;
  shard.rank = rank;
  shard.offsets = {row, col};
  shard.sizes = {rows, cols};
  return shard;
}

// "a" row-wise on ranks 0 and 1, "b" table-wise on rank 1: a plan for 2 ranks.
PlanFile plan_check_plan() {
  PlanFile plan;
  plan.world_size = 2;
  PlanFileTable a;
  a.module = "sparse.ebc";
  a.name = "a";
  a.sharding_type = ShardingType::kRowWise;
  a.ranks = {0, 1};
  a.shards = {plan_check_shard(0, 0, 0, 50, 16), plan_check_shard(1, 50, 0, 50, 16)};
  PlanFileTable b;
  b.module = "sparse.ebc";
  b.name = "b";
  b.ranks = {1};
  b.shards = {plan_check_shard(1, 0, 0, 100, 8)};
  plan.tables = {a, b};
  return plan;
}

TEST_CASE("plan check: a plan made for the model has no differences", "[validate]") {
  CHECK(plan_model_differences(plan_check_plan(), plan_check_model(), 2).empty());
  CHECK(plan_model_differences(plan_check_plan(), plan_check_model(), std::nullopt).empty());
}

TEST_CASE("plan check: a stale plan names every difference", "[validate]") {
  ModelConfig model = plan_check_model();
  model.modules[0].tables[0].num_embeddings = 120;  // grew since the plan
  TableConfig c = model.modules[0].tables[1];
  c.name = "c";
  model.modules[0].tables.push_back(c);                                // new table
  model.modules[0].tables.erase(model.modules[0].tables.begin() + 1);  // "b" dropped
  CHECK(plan_model_differences(plan_check_plan(), model, 2) ==
        std::vector<std::string>{"sparse.ebc.c: in the model, not in the plan",
                                 "sparse.ebc.b: in the plan, not in the model",
                                 "sparse.ebc.a: shards cover 1600 elements, the table [120, 16] has 1920"});
}

TEST_CASE("plan check: shards outside the shape and ranks outside the world", "[validate]") {
  PlanFile plan = plan_check_plan();
  plan.tables[0].shards[1] = plan_check_shard(1, 60, 0, 50, 16);  // overlaps and runs past row 100
  CHECK(plan_model_differences(plan, plan_check_model(), 2) ==
        std::vector<std::string>{"sparse.ebc.a: shard at [60, 0] of size [50, 16] lies outside the table's shape "
                                 "[100, 16]"});
  CHECK(plan_model_differences(plan_check_plan(), plan_check_model(), 1) ==
        std::vector<std::string>{"world size: the plan is for 2 ranks, the topology has 1",
                                 "sparse.ebc.a: ranks [1] outside the world size 1",
                                 "sparse.ebc.b: ranks [1] outside the world size 1"});
}

}  // namespace
}  // namespace shardplan
