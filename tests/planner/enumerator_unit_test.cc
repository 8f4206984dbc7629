// The enumerator on small hand-built models: which (sharding type, kernel) pairs
// torchrec offers per module kind, device and constraints, in torchrec's order.
#include <catch2/catch.hpp>

#include "common/python_set_order.h"
#include "planner/enumerator.h"
#include "planner/storage_estimator.h"
#include "planner/topology.h"

namespace shardplan {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

PlanningInput one_module(ModuleKind kind, std::vector<TableConfig> tables, ComputeDevice device, int world_size = 4) {
  PlanningInput in;
  ModuleConfig m;
  m.path = "m";
  m.kind = kind;
  m.tables = std::move(tables);
  in.model.modules.push_back(m);
  in.topology.world_size = world_size;
  in.topology.compute_device = device;
  return in;
}

TableConfig table(std::string name, std::int64_t rows = 1000, std::int64_t dim = 64, DataType type = DataType::kFp32) {
  TableConfig t;
  t.name = std::move(name);
  t.num_embeddings = rows;
  t.embedding_dim = dim;
  t.data_type = type;
  t.feature_names = {t.name};
  return t;
}

std::vector<ShardingOption> run(const PlanningInput& in) {
  return enumerate_options(in, build_topology(in.topology), {});
}

Pairs pairs_of(const std::vector<ShardingOption>& options) {
  Pairs out;
  for (const auto& o : options)
    out.emplace_back(std::string(to_string(o.sharding_type)), std::string(to_string(o.compute_kernel)));
  return out;
}

}  // namespace

TEST_CASE("an unconstrained cuda EBC table gets every type but grid, three kernels each", "[enumerator]") {
  // Sharding types in the sharder's order (no set when unconstrained); kernels in
  // CPython's set order under PYTHONHASHSEED=0; key_value is guarded.
  const auto options = run(one_module(ModuleKind::kEmbeddingBag, {table("t")}, ComputeDevice::kCuda));
  Pairs want{{"data_parallel", "dense"}};
  for (const char* type : {"table_wise", "column_wise", "table_column_wise", "row_wise", "table_row_wise"})
    for (const char* kernel : {"fused_uvm_caching", "fused", "fused_uvm"}) want.emplace_back(type, kernel);
  CHECK(pairs_of(options) == want);
  CHECK(options[0].partition_by == PartitionBy::kUniform);
  CHECK(options[1].partition_by == PartitionBy::kDevice);
  CHECK(options[7].partition_by == PartitionBy::kHost);  // table_column_wise
}

TEST_CASE("on cpu the EBC sharder has no row-wise kinds; the EC sharder has row_wise", "[enumerator]") {
  const auto ebc = run(one_module(ModuleKind::kEmbeddingBag, {table("t")}, ComputeDevice::kCpu));
  CHECK(pairs_of(ebc) == Pairs{{"data_parallel", "dense"},
                               {"table_wise", "fused"},
                               {"column_wise", "fused"},
                               {"table_column_wise", "fused"}});
  const auto ec = run(one_module(ModuleKind::kEmbedding, {table("t")}, ComputeDevice::kCpu));
  CHECK(pairs_of(ec) ==
        Pairs{{"data_parallel", "dense"}, {"table_wise", "fused"}, {"column_wise", "fused"}, {"row_wise", "fused"}});
  CHECK_FALSE(ec[0].is_pooled);
  CHECK(ebc[0].is_pooled);
}

TEST_CASE("grid_shard and key_value appear only when constrained", "[enumerator]") {
  auto in = one_module(ModuleKind::kEmbeddingBag, {table("t", 1000, 256)}, ComputeDevice::kCuda);
  ParameterConstraintsConfig c;
  c.sharding_types = {ShardingType::kTableRowWise, ShardingType::kGridShard};
  c.compute_kernels = {ComputeKernel::kKeyValue, ComputeKernel::kFused};
  c.min_partition = 64;
  in.model.constraints["t"] = c;
  const auto options = run(in);
  // Both orders are CPython's set orders (checked with PYTHONHASHSEED=0 python3).
  CHECK(pairs_of(options) == Pairs{{"table_row_wise", "key_value"},
                                   {"table_row_wise", "fused"},
                                   {"grid_shard", "key_value"},
                                   {"grid_shard", "fused"}});
  CHECK(options[2].partition_by == PartitionBy::kMultiHost);
  CHECK(options[2].num_shards() == 4 * 4);  // 4 column blocks x 4 ranks of the host
}

TEST_CASE("a table left without any pair fails like torchrec", "[enumerator]") {
  auto in = one_module(ModuleKind::kEmbeddingBag, {table("t")}, ComputeDevice::kCuda);
  ParameterConstraintsConfig c;
  c.sharding_types = {ShardingType::kDataParallel};
  c.compute_kernels = {ComputeKernel::kFused};  // data_parallel only has dense
  in.model.constraints["t"] = c;
  try {
    run(in);
    FAIL("expected an EnumerationError");
  } catch (const EnumerationError& e) {
    CHECK(e.table() == "t");
    CHECK(std::string(e.what()) ==
          "No available sharding type and compute kernel combination after applying user "
          "provided constraints for t. Module: "
          "torchrec.modules.embedding_modules.EmbeddingBagCollection, sharder: "
          "EmbeddingBagCollectionSharder, compute device: cuda. for data_parallel: "
          "constrained compute kernels [fused], allowed compute kernels [dense].");
  }
}

TEST_CASE("device_group other than the topology's device drops the table", "[enumerator]") {
  auto in = one_module(ModuleKind::kEmbeddingBag, {table("gpu"), table("cpu_only")}, ComputeDevice::kCuda);
  ParameterConstraintsConfig c;
  c.device_group = ComputeDevice::kCpu;
  in.model.constraints["cpu_only"] = c;
  for (const auto& o : run(in)) CHECK(o.name == "gpu");
}

TEST_CASE("option fields: element size, weighting, inputs, cache params", "[enumerator]") {
  auto in =
      one_module(ModuleKind::kEmbeddingBag,
                 {table("a", 100, 16, DataType::kInt8), table("b", 100, 16, DataType::kFp32)}, ComputeDevice::kCuda);
  ParameterConstraintsConfig c;
  c.is_weighted = true;
  c.pooling_factors = {3.0, 5.0};
  c.cache_params = CacheParams{0.3, CacheAlgorithm::kLfu, std::nullopt, std::nullopt, std::nullopt};
  in.model.constraints["a"] = c;
  const auto options = run(in);
  for (const auto& o : options) {
    CHECK(o.is_weighted);  // the EBC is weighted as a whole since "a" says so
    if (o.name == "a") {
      CHECK(o.tensor_element_size == 2);  // training EBC stores int8 as fp16
      CHECK(o.input_lengths == std::vector<double>{3.0, 5.0});
      CHECK(o.cache_load_factor() == 0.3);
    } else {
      CHECK(o.tensor_element_size == 4);
      CHECK(o.input_lengths == std::vector<double>{1.0});
      CHECK_FALSE(o.cache_load_factor().has_value());
    }
  }
  // A sequence module reads the constraint table by table.
  auto seq = one_module(ModuleKind::kEmbedding, {table("a"), table("b")}, ComputeDevice::kCuda);
  seq.model.constraints["a"] = c;
  for (const auto& o : run(seq)) CHECK(o.is_weighted == (o.name == "a"));
}

TEST_CASE("modules come in torchrec's stack order, tables in module order", "[enumerator]") {
  // Paths a.x, b, a.y form the tree {a: {x, y}, b}; torchrec pops b first, then
  // a's children last-first: b, a.y, a.x.
  PlanningInput in;
  for (const char* path : {"a.x", "b", "a.y"}) {
    ModuleConfig m;
    m.path = path;
    m.tables = {table(std::string(path) + "_t1"), table(std::string(path) + "_t2")};
    in.model.modules.push_back(m);
  }
  in.topology.world_size = 2;
  ParameterConstraintsConfig tw;
  tw.sharding_types = {ShardingType::kTableWise};
  tw.compute_kernels = {ComputeKernel::kFused};
  for (const auto& m : in.model.modules)
    for (const auto& t : m.tables) in.model.constraints[t.name] = tw;
  std::vector<std::string> fqns;
  for (const auto& o : run(in)) fqns.push_back(o.fqn());
  CHECK(fqns == std::vector<std::string>{"b.b_t1", "b.b_t2", "a.y.a.y_t1", "a.y.a.y_t2", "a.x.a.x_t1", "a.x.a.x_t2"});
}

TEST_CASE("estimators fill every shard", "[enumerator]") {
  auto in = one_module(ModuleKind::kEmbeddingBag, {table("t")}, ComputeDevice::kCuda);
  const EmbeddingStorageEstimator storage;
  const auto options = enumerate_options(in, build_topology(in.topology), {&storage});
  for (const auto& o : options)
    for (const auto& s : o.shards) CHECK(s.storage.has_value());
}

TEST_CASE("set intersections follow CPython's order under PYTHONHASHSEED=0", "[enumerator]") {
  // Expected values printed by python3.11 with PYTHONHASHSEED=0.
  CHECK(python_str_hash("fused") == 8144177978940622924ULL);
  CHECK(python_str_hash("row_wise") == 14078459542056447328ULL);
  CHECK(python_str_hash("abcdefgh") == 4574395652268504554ULL);
  CHECK(python_str_hash("") == 0);
  const std::vector<std::string> all_types{"data_parallel", "table_wise",     "column_wise", "table_column_wise",
                                           "row_wise",      "table_row_wise", "grid_shard"};
  // Five elements make CPython resize the table from 8 to 32 slots.
  CHECK(python_set_intersection({"table_wise", "row_wise", "column_wise", "data_parallel", "grid_shard"}, all_types) ==
        std::vector<std::string>{"row_wise", "table_wise", "column_wise", "data_parallel", "grid_shard"});
  CHECK(python_set_intersection({"fused_uvm", "fused"}, {"fused", "fused_uvm", "fused_uvm_caching", "key_value",
                                                         "ssd_virtual_table", "dram_virtual_table"}) ==
        std::vector<std::string>{"fused", "fused_uvm"});
  CHECK(python_set_intersection({"dense", "fused"}, {"dense"}) == std::vector<std::string>{"dense"});
}

}  // namespace shardplan
