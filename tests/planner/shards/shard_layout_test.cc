// Shard layouts of every sharding type on small hand-checked tables.
#include <catch2/catch.hpp>

#include "planner/shards/shard_layout.h"

namespace shardplan {
namespace {

std::vector<std::vector<std::int64_t>> sizes_of(const std::vector<ShardExtent>& shards) {
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& s : shards) out.emplace_back(s.size.begin(), s.size.end());
  return out;
}
std::vector<std::vector<std::int64_t>> offsets_of(const std::vector<ShardExtent>& shards) {
  std::vector<std::vector<std::int64_t>> out;
  for (const auto& s : shards) out.emplace_back(s.offset.begin(), s.offset.end());
  return out;
}

ShardLayoutRequest table(std::int64_t rows, std::int64_t cols, int world, int local) {
  ShardLayoutRequest r;
  r.rows = rows;
  r.cols = cols;
  r.world_size = world;
  r.local_world_size = local;
  return r;
}

using Grid = std::vector<std::vector<std::int64_t>>;

}  // namespace

TEST_CASE("data_parallel puts the whole table on every rank, table_wise on one", "[enumerator][layout]") {
  const auto dp = shard_layout(ShardingType::kDataParallel, table(7, 16, 3, 3));
  CHECK(sizes_of(dp) == Grid{{7, 16}, {7, 16}, {7, 16}});
  CHECK(offsets_of(dp) == Grid{{0, 0}, {0, 0}, {0, 0}});
  const auto tw = shard_layout(ShardingType::kTableWise, table(7, 16, 3, 3));
  CHECK(sizes_of(tw) == Grid{{7, 16}});
  CHECK(offsets_of(tw) == Grid{{0, 0}});
}

TEST_CASE("row_wise gives ceil(rows/n) to the leading ranks", "[enumerator][layout]") {
  // 10 rows / 4: block ceil(2.5) = 3, 10 // 3 = 3 full ranks, rank 3 gets 10 - 9 = 1.
  const auto rw = shard_layout(ShardingType::kRowWise, table(10, 8, 4, 4));
  CHECK(sizes_of(rw) == Grid{{3, 8}, {3, 8}, {3, 8}, {1, 8}});
  CHECK(offsets_of(rw) == Grid{{0, 0}, {3, 0}, {6, 0}, {9, 0}});
  // 9 rows / 4: block 3, 9 // 3 = 3 full ranks, rank 3 gets 0 (not 3,2,2,2).
  CHECK(even_row_split(9, 4) == std::vector<std::int64_t>{3, 3, 3, 0});
  // 12 rows / 4: even.
  CHECK(even_row_split(12, 4) == std::vector<std::int64_t>{3, 3, 3, 3});
}

TEST_CASE("row_wise of a tiny table leaves empty shards at the end", "[enumerator][layout]") {
  // 5 rows / 8: block 1, ranks 0-4 one row each, rank 5 the remainder 0, 6-7 none.
  const auto rw = shard_layout(ShardingType::kRowWise, table(5, 4, 8, 8));
  CHECK(sizes_of(rw) == Grid{{1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 4}, {0, 4}, {0, 4}, {0, 4}});
  CHECK(offsets_of(rw) == Grid{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {5, 0}, {5, 0}});
}

TEST_CASE("row_wise with custom capacities splits rows by memory", "[enumerator][layout]") {
  // 1000 rows over memory 80:80:40:40 (total 240): int(1000 * 1/3) = 333 twice,
  // int(1000 * 1/6) = 166, and the last rank takes 1000 - 832 = 168.
  auto req = table(1000, 8, 4, 4);
  req.device_memory_sizes = {80, 80, 40, 40};
  const auto rw = shard_layout(ShardingType::kRowWise, req);
  CHECK(sizes_of(rw) == Grid{{333, 8}, {333, 8}, {166, 8}, {168, 8}});
  CHECK(offsets_of(rw) == Grid{{0, 0}, {333, 0}, {666, 0}, {832, 0}});
  // table_row_wise ignores the capacities (torchrec only passes them to row_wise).
  const auto twrw = shard_layout(ShardingType::kTableRowWise, req);
  CHECK(sizes_of(twrw) == Grid{{250, 8}, {250, 8}, {250, 8}, {250, 8}});
}

TEST_CASE("table_row_wise splits rows over one host", "[enumerator][layout]") {
  // 16 ranks, 8 per host: 10 rows over 8 -> block 2, 10 // 2 = 5 full ranks, then 0s.
  const auto twrw = shard_layout(ShardingType::kTableRowWise, table(10, 8, 16, 8));
  CHECK(sizes_of(twrw) == Grid{{2, 8}, {2, 8}, {2, 8}, {2, 8}, {2, 8}, {0, 8}, {0, 8}, {0, 8}});
}

TEST_CASE("column block is the first multiple of 4 from min_partition dividing the dim", "[enumerator][layout]") {
  CHECK(column_block_size(256, std::nullopt) == 128);  // default 128 divides 256
  CHECK(column_block_size(256, 0) == 128);             // 0 means the default
  CHECK(column_block_size(96, std::nullopt) == 96);    // nothing in [128, 96): whole dim
  CHECK(column_block_size(192, 64) == 64);             // 64 | 192
  CHECK(column_block_size(120, 32) == 40);             // 32..39 do not divide 120; 40 does
  CHECK(column_block_size(100, 30) == 100);            // only divisor in [30,100) is 50, not %4
  CHECK(column_block_size(64, 128) == 64);             // min_partition above the dim
}

TEST_CASE("column_wise and table_column_wise cut equal column blocks", "[enumerator][layout]") {
  auto req = table(50, 192, 8, 8);
  req.min_partition = 64;
  for (auto type : {ShardingType::kColumnWise, ShardingType::kTableColumnWise}) {
    const auto cw = shard_layout(type, req);
    CHECK(sizes_of(cw) == Grid{{50, 64}, {50, 64}, {50, 64}});
    CHECK(offsets_of(cw) == Grid{{0, 0}, {0, 64}, {0, 128}});
  }
}

TEST_CASE("grid_shard splits each column block over one host", "[enumerator][layout]") {
  // Rows 10 over a host of 2 -> [5, 5]; 256 columns in blocks of 64 -> 4 blocks;
  // shards column-block-major.
  auto req = table(10, 256, 4, 2);
  req.min_partition = 64;
  const auto grid = shard_layout(ShardingType::kGridShard, req);
  CHECK(sizes_of(grid) == Grid{{5, 64}, {5, 64}, {5, 64}, {5, 64}, {5, 64}, {5, 64}, {5, 64}, {5, 64}});
  CHECK(offsets_of(grid) == Grid{{0, 0}, {5, 0}, {0, 64}, {5, 64}, {0, 128}, {5, 128}, {0, 192}, {5, 192}});
}

TEST_CASE("row splits fail where torchrec divides by zero", "[enumerator][layout]") {
  CHECK_THROWS_AS(shard_layout(ShardingType::kRowWise, table(0, 8, 4, 4)), ShardLayoutError);
  auto req = table(10, 8, 2, 2);
  req.device_memory_sizes = {0, 0};
  CHECK_THROWS_AS(shard_layout(ShardingType::kRowWise, req), ShardLayoutError);
}

}  // namespace shardplan
