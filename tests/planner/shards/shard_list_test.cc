// ShardList, the compact (run-length) storage of an option's shards: every shard
// read back equals the one the per-shard layout and estimators give, on random
// tables (even and uneven row splits, every sharding type), and the common
// layouts take a handful of runs instead of one Shard per rank.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "planner/enumerator.h"
#include "planner/perf_estimator.h"
#include "planner/shards/shard_layout.h"
#include "planner/storage_estimator.h"
#include "planner/topology.h"

namespace shardplan {
namespace {

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

bool same_perf_bits(const std::optional<Perf>& a, const std::optional<Perf>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (same_bits(a->fwd_compute, b->fwd_compute) && same_bits(a->fwd_comms, b->fwd_comms) &&
                same_bits(a->bwd_compute, b->bwd_compute) && same_bits(a->bwd_comms, b->bwd_comms) &&
                same_bits(a->prefetch_compute, b->prefetch_compute));
}

// Field by field, perf bit for bit; a message naming the first difference, or "".
std::string shard_difference(const Shard& want, const Shard& got) {
  if (want.size != got.size) return "size";
  if (want.offset != got.offset) return "offset";
  if (want.storage != got.storage) return "storage";
  if (!same_perf_bits(want.perf, got.perf)) return "perf";
  if (want.rank != got.rank) return "rank";
  return "";
}

// Every way of reading `list` gives `want`, shard by shard.
void check_reads_back(const std::vector<Shard>& want, const ShardList& list) {
  REQUIRE(list.size() == want.size());
  CHECK(list.empty() == want.empty());
  std::size_t i = 0;
  for (const Shard& got : list) {  // the iterator
    INFO("shard " << i << " (iterator)");
    REQUIRE(i < want.size());
    CHECK(shard_difference(want[i], got) == "");
    ++i;
  }
  CHECK(i == want.size());
  for (std::size_t j = 0; j < want.size(); ++j) {  // random access
    INFO("shard " << j << " (operator[])");
    CHECK(shard_difference(want[j], list[j]) == "");
  }
  if (!want.empty()) {
    CHECK(shard_difference(want.front(), list.front()) == "");
    CHECK(shard_difference(want.back(), list.back()) == "");
  }
  CHECK_THROWS_AS(list.at(want.size()), std::out_of_range);
  // Runs tile the list in order.
  std::int32_t next = 0;
  for (const ShardRun& run : list.runs()) {
    CHECK(run.begin == next);
    CHECK(run.count > 0);
    next += run.count;
  }
  CHECK(next == static_cast<std::int32_t>(want.size()));
}

std::vector<Shard> shards_of(const std::vector<ShardExtent>& layout) {
  std::vector<Shard> out;
  for (const ShardExtent& e : layout) {
    Shard s;
    s.size = e.size;
    s.offset = e.offset;
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST_CASE("a shard list gives back exactly the shards pushed, whatever their pattern", "[shard_list]") {
  std::mt19937_64 rng(28);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Few distinct values, so that runs form and break in every way: a perf of -0.0
  // must not merge with 0.0, nor a NaN with anything.
  const std::vector<std::optional<Perf>> perfs{std::nullopt, Perf{}, Perf{-0.0, 0, 0, 0, 0}, Perf{1.5, 2, 0, 0, 0.25},
                                               Perf{nan, 0, 0, 0, 0}};
  const std::vector<std::optional<Storage>> storages{std::nullopt, Storage{}, Storage{100, 0}, Storage{100, 7}};
  const std::vector<ShardDims> sizes{{10, 4}, {10, 4}, {3, 4}, {0, 4}};
  for (int trial = 0; trial < 300; ++trial) {
    INFO("trial " << trial);
    std::vector<Shard> want;
    const int n = static_cast<int>(rng() % 40);
    const bool ranked = rng() % 2 == 0;
    ShardDims offset{0, 0};
    for (int j = 0; j < n; ++j) {
      Shard s;
      s.size = sizes[rng() % sizes.size()];
      // Mostly progressions (row-wise, column-wise, repeated), sometimes a jump.
      switch (rng() % 4) {
        case 0:
          offset[0] += s.size[0];
          break;
        case 1:
          offset[1] += s.size[1];
          break;
        case 2:
          break;
        default:
          offset = {static_cast<std::int64_t>(rng() % 50), static_cast<std::int64_t>(rng() % 50)};
      }
      s.offset = offset;
      s.storage = storages[rng() % 2 ? 2 : rng() % storages.size()];
      s.perf = perfs[rng() % 2 ? 3 : rng() % perfs.size()];
      if (ranked) s.rank = rng() % 3 == 0 ? static_cast<int>(rng() % 8) : j;
      want.push_back(s);
    }
    ShardList list;
    for (const Shard& s : want) list.push_back(s);
    check_reads_back(want, list);
    check_reads_back(want, ShardList(want));
    CHECK(list.to_vector().size() == want.size());
    if (n > 0) {
      // Replacing one shard changes that shard only.
      const std::size_t j = rng() % want.size();
      Shard other = want[j];
      other.offset = {12345, 678};
      other.rank = 99;
      want[j] = other;
      list.set(j, other);
      check_reads_back(want, list);
      // Ranks set by index.
      list.with_ranks([](std::size_t k) { return static_cast<int>(k) * 2 + 1; });
      for (std::size_t k = 0; k < want.size(); ++k) want[k].rank = static_cast<int>(k) * 2 + 1;
      check_reads_back(want, list);
    }
  }
}

TEST_CASE("the layout of every sharding type reads back shard for shard, in few runs", "[shard_list]") {
  std::mt19937_64 rng(20261122);
  const std::vector<ShardingType> types{ShardingType::kDataParallel, ShardingType::kTableWise,
                                        ShardingType::kColumnWise,   ShardingType::kTableColumnWise,
                                        ShardingType::kRowWise,      ShardingType::kTableRowWise,
                                        ShardingType::kGridShard};
  for (int trial = 0; trial < 400; ++trial) {
    ShardLayoutRequest r;
    r.rows = rng() % 4 == 0 ? 1 + static_cast<std::int64_t>(rng() % 40)
                            : static_cast<std::int64_t>(std::exp(std::uniform_real_distribution<>(0, 18.4)(rng)));
    r.cols = 4 * (1 + static_cast<std::int64_t>(rng() % 128));
    const int hosts = 1 + static_cast<int>(rng() % 16);
    r.local_world_size = 1 << (rng() % 4);
    r.world_size = hosts * r.local_world_size;
    const bool uneven = trial % 3 == 0;  // custom per-rank capacities: rows in proportion to memory
    if (uneven)
      for (int k = 0; k < r.world_size; ++k) r.device_memory_sizes.push_back(1 + static_cast<std::int64_t>(rng() % 5));
    for (ShardingType type : types) {
      INFO("trial " << trial << ", " << to_string(type) << ", " << r.rows << " x " << r.cols << " on " << r.world_size
                    << " ranks" << (uneven ? " (uneven)" : ""));
      const std::vector<Shard> want = shards_of(shard_layout(type, r));
      const ShardList list(want);
      check_reads_back(want, list);
      // What makes the list compact: an even row-wise split is full blocks, one
      // remainder and empty shards; data-parallel and column-wise one run.
      if (type == ShardingType::kDataParallel || type == ShardingType::kTableWise ||
          type == ShardingType::kColumnWise || type == ShardingType::kTableColumnWise)
        CHECK(list.runs().size() == 1);
      if ((type == ShardingType::kRowWise && !uneven) || type == ShardingType::kTableRowWise)
        CHECK(list.runs().size() <= 3);
    }
  }
}

TEST_CASE("estimated shards equal the per-shard estimates of the same layout", "[shard_list]") {
  // The estimators set one storage and one perf per run; each must equal what
  // estimating every shard on its own gives (storage: one request listing every
  // shard's size; perf: the wall time of each shard's size).
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    PlanningInput in;
    ModuleConfig m;
    m.path = "m";
    m.kind = trial % 4 == 3 ? ModuleKind::kEmbedding : ModuleKind::kEmbeddingBag;
    for (int t = 0; t < 3; ++t) {
      TableConfig table;
      table.name = "t" + std::to_string(t);
      table.num_embeddings = static_cast<std::int64_t>(std::exp(std::uniform_real_distribution<>(2.3, 18.4)(rng)));
      table.embedding_dim = 4 * (1 + static_cast<std::int64_t>(rng() % 96));
      table.data_type = rng() % 2 ? DataType::kFp32 : DataType::kFp16;
      table.feature_names = {table.name};
      m.tables.push_back(table);
      ParameterConstraintsConfig c;
      c.pooling_factors = {1.0 + static_cast<double>(rng() % 5000) / 100.0};
      in.model.constraints[table.name] = c;
    }
    in.model.modules.push_back(m);
    const int local = 1 << (rng() % 4);
    in.topology.local_world_size = local;
    in.topology.world_size = local * (1 + static_cast<int>(rng() % 8));
    in.topology.compute_device = ComputeDevice::kCuda;
    if (trial % 3 == 0) {  // uneven row-wise split
      std::vector<std::int64_t> caps;
      for (int k = 0; k < in.topology.world_size; ++k)
        caps.push_back((16 + static_cast<std::int64_t>(rng() % 64)) << 30);
      in.topology.custom_hbm_cap = caps;
    }
    const Topology topology = build_topology(in.topology);
    const EmbeddingStorageEstimator storage;
    const EmbeddingPerfEstimator perf;
    const std::vector<ShardingOption> options = enumerate_options(in, topology, {&storage, &perf});
    REQUIRE_FALSE(options.empty());
    const EstimatorContext context{topology, in.model, in.planner};
    for (const ShardingOption& option : options) {
      INFO("trial " << trial << ": " << option.name << " " << to_string(option.sharding_type) << " "
                    << to_string(option.compute_kernel));
      const std::vector<Storage> storages = calculate_shard_storages(storage_request(option, context));
      const WallTimeInputs wall = wall_time_inputs(option, context);
      REQUIRE(storages.size() == option.shards.size());
      std::size_t j = 0;
      for (const Shard& got : option.shards) {
        INFO("shard " << j);
        CHECK(got.storage == storages[j]);
        CHECK(same_perf_bits(got.perf, shard_wall_time(wall, got.size[0], got.size[1])));
        ++j;
      }
      // And the layout itself is the one shard_layout gives for the table.
      ShardLayoutRequest r;
      r.rows = option.tensor_shape.at(0);
      r.cols = option.tensor_shape.at(1);
      r.world_size = topology.world_size;
      r.local_world_size = topology.local_world_size;
      if (in.topology.custom_hbm_cap)
        for (const auto& d : topology.devices) r.device_memory_sizes.push_back(d.storage.hbm);
      const std::vector<ShardExtent> layout = shard_layout(option.sharding_type, r);
      REQUIRE(layout.size() == option.shards.size());
      for (std::size_t k = 0; k < layout.size(); ++k) {
        CHECK(option.shards[k].size == layout[k].size);
        CHECK(option.shards[k].offset == layout[k].offset);
      }
    }
  }
}

}  // namespace shardplan
