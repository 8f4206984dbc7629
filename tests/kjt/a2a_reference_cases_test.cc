// The plan-derived mode on two of torchrec's reference cases (../shared/cases):
// `shardplan plan --config CASE`, then `shardplan a2a --plan PLAN --config CASE`.
// The expected numbers are worked out by hand below from each case's inputs and
// the rules in docs/commands/a2a.md (not read from the goldens). Each test first checks
// that the plan places the tables as the hand-worked numbers assume (the parity
// tests prove that placement equals torchrec's).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace {

using nlohmann::json;
using shardplan::testing::run_shardplan;
using shardplan::testing::scratch_prefix;

// Relative tolerance: row shares such as 375001/3000001 are fractions, so sums of
// expected values are compared in floating point.
constexpr double kRelTol = 1e-9;

bool near(double actual, double expected) {
  return std::fabs(actual - expected) <= kRelTol * std::max(1.0, std::fabs(expected));
}

// The case file `name` under ../shared/cases, or nullopt (loud skip / CI failure).
std::optional<std::string> reference_case(const std::string& name) {
  auto dir = shardplan::testing::cases_dir();
  if (!dir) {
    shardplan::testing::note_parity_skipped();
    return std::nullopt;
  }
  return *dir + "/case-" + name + ".json";
}

struct PlanAndTraffic {
  json plan;
  json traffic;
};

PlanAndTraffic plan_then_a2a(const std::string& name, const std::string& case_path) {
  const std::string plan_path = scratch_prefix() + "a2a-ref-" + name + ".plan.json";
  auto planned = run_shardplan("plan --config '" + case_path + "' -o '" + plan_path + "' --stats none");
  INFO(planned.err);
  REQUIRE(planned.exit_code == 0);
  auto a2a = run_shardplan("a2a --plan '" + plan_path + "' --config '" + case_path + "'");
  INFO(a2a.err);
  REQUIRE(a2a.exit_code == 0);
  std::ifstream in(plan_path);
  return {json::parse(in), json::parse(a2a.out)};
}

// The (sharding type, ranks of the shards in order) the plan gives `table` in module ebc.
std::pair<std::string, std::vector<int>> placement(const json& plan, const std::string& table) {
  const json& t = plan.at("plan").at("ebc").at(table);
  std::vector<int> ranks;
  for (const auto& s : t.at("shards")) ranks.push_back(s.at("rank").get<int>());
  return {t.at("sharding_type").get<std::string>(), ranks};
}

const json& collective(const json& group, const std::string& name) {
  for (const auto& c : group.at("collectives"))
    if (c.at("name") == name) return c;
  FAIL("no collective " << name);
  throw;
}

}  // namespace

// case-multi-feature-tables-ws2: 2 ranks, local_world_size 1 (so 2 hosts), batch size
// 512 (the model's default), every table table-wise:
//   rank 0: shared_ids, features click_ids, view_ids, buy_ids; pooling factors
//           30, 10, 2 at batch sizes 512, 512, 256.
//   rank 1: shared_cat (cat_a, cat_b: 1, 1 at 512), four (f0..f3: 1, 5, 50, 100 at
//           512, 1024, 128, 64) and single (one feature `single`, pooling factor 1).
// Per source rank (each sends the same):
//   lengths, one per feature and sample of the model's batch: to rank 0 3 x 512 = 1536
//     (6 144 B as int32); to rank 1 7 x 512 = 3584 (14 336 B).
//   values, sum of pooling factor x batch size: to rank 0 30x512 + 10x512 + 2x256 = 20 992
//     (167 936 B as int64); to rank 1 (512 + 512) + (512 + 5120 + 6400 + 6400) + 512 = 19 968
//     (159 744 B).
// Totals over both sources: lengths 2 x (6144 + 14336) = 40 960 B, values
// 2 x (167936 + 159744) = 655 360 B, all 696 320 B; cross-host (= cross-rank here) half
// of it, 14336 + 6144 + 159744 + 167936 = 348 160 B. Each rank sends 6144 + 167936 =
// 174 080 B to itself and 174 080 B to the other host (sent 348 160 B), and receives
// the same.
TEST_CASE("a2a plan mode on reference case multi-feature-tables-ws2", "[kjt][a2a][plan][reference]") {
  auto path = reference_case("multi-feature-tables-ws2");
  if (!path) return;
  auto [plan, out] = plan_then_a2a("multi-feature-tables-ws2", *path);
  REQUIRE(placement(plan, "shared_ids") == std::make_pair(std::string("table_wise"), std::vector<int>{0}));
  for (const char* t : {"shared_cat", "four", "single"})
    REQUIRE(placement(plan, t) == std::make_pair(std::string("table_wise"), std::vector<int>{1}));

  CHECK(out.at("world_size") == 2);
  CHECK(out.at("local_world_size") == 1);
  CHECK(out.at("batch_size") == 512);
  REQUIRE(out.at("groups").size() == 1);
  const json& group = out.at("groups")[0];
  CHECK(group.at("sharding_type") == "table_wise");
  CHECK(group.at("feature_layout") ==
        json::parse(R"([["click_ids","view_ids","buy_ids"],["cat_a","cat_b","f0","f1","f2","f3","single"]])"));
  const json& lengths = collective(group, "lengths");
  const json& values = collective(group, "values");
  for (int s = 0; s < 2; ++s) {
    CHECK(near(lengths.at("elements")[s][0], 1536));
    CHECK(near(lengths.at("elements")[s][1], 3584));
    CHECK(near(lengths.at("bytes")[s][0], 6144));
    CHECK(near(lengths.at("bytes")[s][1], 14336));
    CHECK(near(values.at("elements")[s][0], 20992));
    CHECK(near(values.at("elements")[s][1], 19968));
    CHECK(near(values.at("bytes")[s][0], 167936));
    CHECK(near(values.at("bytes")[s][1], 159744));
  }
  CHECK(near(lengths.at("total_bytes"), 40960));
  CHECK(near(values.at("total_bytes"), 655360));
  CHECK(near(out.at("total_bytes"), 696320));
  CHECK(near(out.at("cross_host_bytes"), 348160));
  for (int r = 0; r < 2; ++r) {
    const json& rb = out.at("rank_bytes")[r];
    CHECK(rb.at("host") == r);
    CHECK(near(rb.at("sent_bytes"), 348160));
    CHECK(near(rb.at("received_bytes"), 348160));
    CHECK(near(rb.at("cross_host_sent_bytes"), 174080));
    CHECK(near(rb.at("cross_host_received_bytes"), 174080));
    CHECK(near(rb.at("intra_host_sent_bytes"), 0));
  }
}

// case-force-table-row-wise-ws16-2hosts: 16 ranks, 8 a host, batch size 512, every
// table table_row_wise over one host's 8 ranks, one feature each:
//   host 0 (ranks 0-7): twrw0 (20 000 000 rows, 2 500 000 a rank, pooling factor 5) and
//                       twrw3 (700 000 rows, 87 500 a rank, pooling factor 20);
//   host 1 (ranks 8-15): twrw1 (8 000 000 rows, 1 000 000 a rank, pooling factor 10) and
//                       twrw2 (3 000 001 rows: 375 001 on ranks 8-14, 374 994 on rank 15,
//                       pooling factor 15).
// From every source to every destination: lengths 2 tables x 512 = 1 024 (4 096 B).
// Values (ids uniform over rows): to a host-0 rank 5x512/8 + 20x512/8 = 320 + 1 280 =
// 1 600; to a host-1 rank 10x512/8 + 15x512 x share = 640 + 7680 x 375001/3000001
// (ranks 8-14) or x 374994/3000001 (rank 15). A source sends 8 x 1600 + 8 x 640 + 7680 =
// 25 600 values in all, 12 800 of them to the other host.
// Totals: lengths 16 x 16 x 4096 = 1 048 576 B (cross-host 2 x 8 x 8 x 4096 = 524 288 B);
// values 16 x 25600 x 8 = 3 276 800 B (cross-host 16 x 12800 x 8 = 1 638 400 B); all
// 4 325 376 B, cross-host 2 162 688 B.
// Rank 0 sends 16 x 4096 + 25600 x 8 = 270 336 B: 135 168 B to host 1 (8 x 4096 +
// 12800 x 8), 118 272 B to the 7 other ranks of its host (7 x 4096 + 7 x 1600 x 8).
// Rank 8 receives 16 x (4096 + (640 + 7680 x 375001/3000001) x 8) B.
TEST_CASE("a2a plan mode on reference case force-table-row-wise-ws16-2hosts", "[kjt][a2a][plan][reference]") {
  auto path = reference_case("force-table-row-wise-ws16-2hosts");
  if (!path) return;
  auto [plan, out] = plan_then_a2a("force-table-row-wise-ws16-2hosts", *path);
  const std::vector<int> host0{0, 1, 2, 3, 4, 5, 6, 7}, host1{8, 9, 10, 11, 12, 13, 14, 15};
  const std::string twrw = "table_row_wise";
  REQUIRE(placement(plan, "twrw0") == std::make_pair(twrw, host0));
  REQUIRE(placement(plan, "twrw3") == std::make_pair(twrw, host0));
  REQUIRE(placement(plan, "twrw1") == std::make_pair(twrw, host1));
  REQUIRE(placement(plan, "twrw2") == std::make_pair(twrw, host1));

  CHECK(out.at("world_size") == 16);
  CHECK(out.at("local_world_size") == 8);
  REQUIRE(out.at("groups").size() == 1);
  const json& group = out.at("groups")[0];
  CHECK(group.at("sharding_type") == twrw);
  for (int r = 0; r < 16; ++r)
    CHECK(group.at("feature_layout")[r] ==
          (r < 8 ? json::parse(R"(["twrw0","twrw3"])") : json::parse(R"(["twrw1","twrw2"])")));
  const json& lengths = collective(group, "lengths");
  const json& values = collective(group, "values");
  const double to_host1 = 640 + 7680.0 * 375001 / 3000001;
  const double to_rank15 = 640 + 7680.0 * 374994 / 3000001;
  for (int s = 0; s < 16; ++s)
    for (int d = 0; d < 16; ++d) {
      CHECK(near(lengths.at("elements")[s][d], 1024));
      const double expected = d < 8 ? 1600 : d < 15 ? to_host1 : to_rank15;
      CHECK(near(values.at("elements")[s][d], expected));
    }
  CHECK(near(lengths.at("total_bytes"), 1048576));
  CHECK(near(lengths.at("cross_host_bytes"), 524288));
  CHECK(near(values.at("total_bytes"), 3276800));
  CHECK(near(values.at("cross_host_bytes"), 1638400));
  CHECK(near(out.at("total_bytes"), 4325376));
  CHECK(near(out.at("cross_host_bytes"), 2162688));
  const json& rank0 = out.at("rank_bytes")[0];
  CHECK(near(rank0.at("sent_bytes"), 270336));
  CHECK(near(rank0.at("cross_host_sent_bytes"), 135168));
  CHECK(near(rank0.at("intra_host_sent_bytes"), 118272));
  CHECK(near(out.at("rank_bytes")[8].at("received_bytes"), 16 * (4096 + to_host1 * 8)));
}
