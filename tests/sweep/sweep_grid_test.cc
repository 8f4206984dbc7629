// The sweep grid: order of points, --set and sweep-file reading with positioned
// errors, values checked as `plan`'s flags are, and the slices of --shard.
#include "sweep/sweep_grid.h"

#include <catch2/catch.hpp>

#include "config/config_test_util.h"
#include "config/loader.h"
#include "sweep/sweep_run.h"

namespace shardplan {
namespace {

using testing::problems_of;
using testing::write_scratch;

TEST_CASE("sweep grid: the last field varies fastest, fields in the order given", "[sweep]") {
  const SweepGrid grid = read_sweep_grid("", {"world_size=2,4", "hbm_cap=8 GiB, 16 GiB ,32GiB"});
  REQUIRE(grid.size() == 6);
  CHECK(grid.coordinates(0) == std::vector<std::size_t>{0, 0});
  CHECK(grid.coordinates(1) == std::vector<std::size_t>{0, 1});
  CHECK(grid.coordinates(2) == std::vector<std::size_t>{0, 2});
  CHECK(grid.coordinates(3) == std::vector<std::size_t>{1, 0});
  CHECK(grid.coordinates(5) == std::vector<std::size_t>{1, 2});
  const PlannerOverrides point4 = grid.overrides_at(4);
  CHECK(point4.world_size == 4);
  CHECK(point4.hbm_cap == "16 GiB");  // spaces around a value are not part of it
  CHECK_FALSE(point4.batch_size.has_value());
  CHECK(grid.canonical_text() == "world_size=2,4;hbm_cap=8 GiB,16 GiB,32GiB");
}

TEST_CASE("sweep grid: the file's fields come first, then each --set; proposers join with '+'", "[sweep]") {
  const std::string file = write_scratch("grid.yaml",
                                         "grid:\n"
                                         "  proposers: [[grid_search, greedy], uniform, greedy+greedy_sum]\n"
                                         "  reservation_percentage: [0.1, 0.25]\n");
  const SweepGrid grid = read_sweep_grid(file, {"partitioner=memory_balanced"});
  REQUIRE(grid.axes.size() == 3);
  CHECK(grid.axes[0].field == SweepField::kProposers);
  CHECK(grid.axes[2].field == SweepField::kPartitioner);
  CHECK(grid.size() == 6);
  CHECK(grid.overrides_at(0).proposers == "grid_search,greedy");
  CHECK(grid.overrides_at(2).proposers == "uniform");
  CHECK(grid.overrides_at(5).proposers == "greedy,greedy_sum");
  CHECK(grid.overrides_at(1).reservation_percentage == 0.25);
  CHECK(grid.overrides_at(1).partitioner == "memory_balanced");
}

TEST_CASE("sweep grid: every problem of the file, at its position, then those of --set", "[sweep]") {
  const std::string file = write_scratch("bad-grid.yaml",
                                         "grid:\n"
                                         "  word_size: [8]\n"
                                         "  hbm_cap: []\n"
                                         "  batch_size: [512, 1.5, 512]\n"
                                         "  partitioner: [greedy, memory_balance]\n"
                                         "extra: 1\n");
  CHECK(problems_of([&] {
          read_sweep_grid(file, {"world_size", "batch_size=1", "sort_by=perf,,storage", "ddr_cap="});
        }) == std::vector<std::string>{
                  "bad-grid.yaml:2:3: grid.word_size: unknown sweep field 'word_size', did you mean 'world_size'?",
                  "bad-grid.yaml:3:12: grid.hbm_cap: expected a non-empty list of values",
                  "bad-grid.yaml:4:21: grid.batch_size[1]: expected an integer, found '1.5'",
                  "bad-grid.yaml:4:26: grid.batch_size[2]: value '512' is given twice",
                  "bad-grid.yaml:5:25: grid.partitioner[1]: unknown partitioner 'memory_balance', did you mean "
                  "'memory_balanced'?",
                  "bad-grid.yaml:6:1: extra: unknown key 'extra' (known keys: grid)",
                  "--set: expected FIELD=V1,V2,..., found 'world_size'",
                  "--set: field 'batch_size' is swept twice; give all its values in one place",
                  "--set sort_by[1]: expected a value, found nothing between commas",
                  "--set ddr_cap: expected at least one value after '=', found none",
              });
  CHECK(problems_of([] { read_sweep_grid("", {}); }) ==
        std::vector<std::string>{"nothing to sweep: give --set FIELD=V1,V2 or --sweep FILE"});
}

TEST_CASE("sweep grid: a grid past the point limit is refused before it runs", "[sweep]") {
  std::vector<std::string> sets;
  std::string values;
  for (int v = 1; v <= 100; ++v) values += (v > 1 ? "," : "") + std::to_string(v);
  for (const char* field : {"world_size", "batch_size", "local_world_size", "greedy_threshold"})
    sets.push_back(std::string(field) + "=" + values);
  CHECK(problems_of([&] { read_sweep_grid("", sets); }) ==
        std::vector<std::string>{"the grid has more than 1000000 points; sweep fewer values"});
}

TEST_CASE("sweep grid: values are checked against the input as plan's flags are", "[sweep]") {
  const std::string config = std::string(SHARDPLAN_SOURCE_DIR) + "/configs/quickstart.json";
  const PlanningInput input = load_case(config);
  const SweepGrid grid = read_sweep_grid("", {"world_size=2,0", "reservation_percentage=0.5,150%", "batch_size=-3"});
  CHECK(problems_of([&] { check_grid_applies(grid, input); }) ==
        std::vector<std::string>{
            "--set world_size[1]: expected a positive integer, found 0",
            "--set reservation_percentage[1]: expected a ratio from 0% to 100% (0 to 1), found 1.5 (150%)",
            "--set batch_size[0]: expected a positive integer, found -3",
        });
  CHECK_NOTHROW(check_grid_applies(read_sweep_grid("", {"world_size=1,64", "hbm_cap=1 MiB"}), input));
}

TEST_CASE("sweep shards: K/N takes every N-th point from K; the slices cover the grid once", "[sweep]") {
  CHECK(shard_points(10, SweepShard{1, 3}) == std::vector<std::size_t>{1, 4, 7});
  CHECK(shard_points(2, SweepShard{2, 3}).empty());
  std::vector<int> seen(17, 0);
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t i : shard_points(17, SweepShard{k, 4})) ++seen[i];
  CHECK(seen == std::vector<int>(17, 1));
  REQUIRE(parse_sweep_shard("2/5"));
  CHECK(parse_sweep_shard("2/5")->index == 2);
  CHECK(parse_sweep_shard("2/5")->count == 5);
  for (const char* bad : {"5/5", "1/0", "-1/4", "1", "a/b", "1/2/3", ""}) {
    INFO(bad);
    CHECK_FALSE(parse_sweep_shard(bad));
  }
}

}  // namespace
}  // namespace shardplan
