// The plan-derived mode through the real binary on two small reference cases whose
// numbers are worked out by hand below (from the rules in docs/commands/a2a.md: who receives
// which features under each sharding type, values shared by row count).
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include <yaml-cpp/yaml.h>

#include "config/config_test_util.h"
#include "kjt/a2a_test_util.h"

namespace {

using nlohmann::json;
using shardplan::testing::check_fields;
using shardplan::testing::run_shardplan;
using shardplan::testing::write_scratch;

// A plan with only what the mode reads: topology and, per table, type and shards.
std::string plan_file(const std::string& name, const std::string& tables) {
  return write_scratch(name, R"({"schema":"shardplan.plan/v1","topology":{"world_size":4,"local_world_size":2,
    "compute_device":"cuda","devices":[]},"plan":{"ebc":{)" +
                                 tables + "}}}");
}

std::string shard(int rank, int rows, int column = 0) {
  return R"({"rank":)" + std::to_string(rank) + R"(,"offsets":[0,)" + std::to_string(column) + R"(],"sizes":[)" +
         std::to_string(rows) + ",32]}";
}

json run_ok(const std::string& args) {
  auto r = run_shardplan("a2a " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

}  // namespace

// Case A: 4 ranks on 2 hosts (host = rank / 2), batch size 10 per rank.
//  t_tw: table-wise on rank 2, feature f_tw, pooling factor 3.
//    Every source sends rank 2: lengths 1 feature x 10 = 10 (40 B as int32),
//    values 3 x 10 = 30 (240 B as int64). Totals over 4 sources: 160 B and 960 B;
//    without 2->2: 120 and 720; cross-host = sources 0 and 1: 80 and 480.
//  t_rw: row-wise, 25 of 100 rows per rank, feature f_rw, pooling factor 2, weighted.
//    Every pair: lengths 10 (40 B); values 2 x 10 x 25/100 = 5 (40 B); weights 5 (20 B
//    as float32). 16 pairs: 640, 640, 320 B; 12 cross-rank pairs: 480, 480, 240;
//    8 cross-host pairs (host 0 <-> host 1): 320, 320, 160.
//  t_dp: data-parallel: no all-to-all.
//  Rank 0 sends 40 + 240 to rank 2 (t_tw) and 40 + 40 + 20 = 100 to each rank (t_rw):
//    680 in all, 280 + 2 x 100 = 480 cross-host, 100 to rank 1 within its host; it
//    receives 4 x 100 = 400. Rank 2 receives 4 x 280 + 400 = 1520, of which 2 x 280
//    + 2 x 100 = 760 cross-host and 280 + 100 = 380 from rank 3.
//  Totals: 160 + 960 + 640 + 640 + 320 = 2720 B; cross-host 80 + 480 + 320 + 320 + 160 = 1360 B.
TEST_CASE("a2a plan mode, case A: table-wise, weighted row-wise, data-parallel", "[kjt][a2a][plan]") {
  std::string model = write_scratch("plan_a_model.yaml", R"(name: case-a
batch_size: 10
modules:
  - path: ebc
    tables:
      - {name: t_tw, num_embeddings: 100, embedding_dim: 32, feature_names: [f_tw]}
      - {name: t_rw, num_embeddings: 100, embedding_dim: 32, feature_names: [f_rw]}
      - {name: t_dp, num_embeddings: 100, embedding_dim: 32, feature_names: [f_dp]}
constraints:
  t_tw: {pooling_factors: [3.0]}
  t_rw: {pooling_factors: [2.0], is_weighted: true}
)");
  std::string plan = plan_file("plan_a.json", R"("t_tw":{"sharding_type":"table_wise","shards":[)" + shard(2, 100) +
                                                  R"(]},"t_rw":{"sharding_type":"row_wise","shards":[)" + shard(0, 25) +
                                                  "," + shard(1, 25) + "," + shard(2, 25) + "," + shard(3, 25) +
                                                  R"(]},"t_dp":{"sharding_type":"data_parallel",
                                                  "shards":[)" +
                                                  shard(0, 100) + "]}");
  json out = run_ok("--plan '" + plan + "' --model '" + model + "'");
  check_fields(out, json::parse(R"({"mode":"plan","world_size":4,"local_world_size":2,"batch_size":10,
    "total_bytes":2720,"cross_host_bytes":1360})"));
  REQUIRE(out["groups"].size() == 3);
  check_fields(out["groups"][0], json::parse(R"({"module":"ebc","sharding_type":"data_parallel",
    "feature_layout":[[],[],[],[]],"collectives":[]})"));
  check_fields(out["groups"][1], json::parse(R"({"sharding_type":"table_wise","feature_layout":[[],[],["f_tw"],[]],
    "collectives":[
     {"phase":1,"name":"lengths","dtype":"int32","elements":[[0,0,10,0],[0,0,10,0],[0,0,10,0],[0,0,10,0]],
      "total_bytes":160,"cross_rank_bytes":120,"cross_host_bytes":80,"intra_host_bytes":40},
     {"phase":2,"name":"values","dtype":"int64","elements":[[0,0,30,0],[0,0,30,0],[0,0,30,0],[0,0,30,0]],
      "total_bytes":960,"cross_rank_bytes":720,"cross_host_bytes":480,"intra_host_bytes":240}]})"));
  check_fields(out["groups"][2], json::parse(R"({"sharding_type":"row_wise",
    "feature_layout":[["f_rw"],["f_rw"],["f_rw"],["f_rw"]],
    "collectives":[
     {"name":"lengths","elements":[[10,10,10,10],[10,10,10,10],[10,10,10,10],[10,10,10,10]],
      "total_bytes":640,"cross_rank_bytes":480,"cross_host_bytes":320},
     {"name":"values","elements":[[5,5,5,5],[5,5,5,5],[5,5,5,5],[5,5,5,5]],
      "bytes":[[40,40,40,40],[40,40,40,40],[40,40,40,40],[40,40,40,40]],
      "total_bytes":640,"cross_rank_bytes":480,"cross_host_bytes":320},
     {"phase":2,"name":"weights","dtype":"float32","total_bytes":320,"cross_rank_bytes":240,"cross_host_bytes":160}]})"));
  check_fields(out["rank_bytes"][0], json::parse(R"({"rank":0,"host":0,"sent_bytes":680,"received_bytes":400,
    "cross_host_sent_bytes":480,"intra_host_sent_bytes":100})"));
  check_fields(out["rank_bytes"][2], json::parse(R"({"rank":2,"host":1,"received_bytes":1520,
    "cross_host_received_bytes":760,"intra_host_received_bytes":380})"));
}

// Case B: the same 4 ranks on 2 hosts, batch size 8, protocol splits_then_tensors.
//  t_cw: column-wise, two column shards (all 50 rows each) on ranks 1 and 3; features
//    f_a, f_b with pooling factors 1 and 4. Each shard's rank gets both features from
//    every source: lengths 2 x 8 = 16 (64 B), values (1 + 4) x 8 = 40 (320 B).
//    splits: 2 labels + stride = 3 int64 (24 B) between every pair: 384 B, 288 cross-rank,
//    192 cross-host. lengths: 8 pairs x 64 = 512, minus 1->1 and 3->3 = 384, cross-host
//    (2,3 -> 1 and 0,1 -> 3) 4 x 64 = 256. values: 8 x 320 = 2560, 1920, 4 x 320 = 1280.
//  t_twrw: table-row-wise on host 1, 45 of 90 rows on ranks 2 and 3, feature f_c,
//    pooling factor 6. Ranks 2 and 3 get lengths 8 (32 B) and values 6 x 8 x 45/90 = 24
//    (192 B) from every source. splits as above (384, 288, 192); lengths 256, 192,
//    cross-host (0,1 -> 2,3) 128; values 1536, 1152, 768.
//  Totals: 384 + 512 + 2560 + 384 + 256 + 1536 = 5632 B; cross-host 192 + 256 + 1280 +
//    192 + 128 + 768 = 2816 B.
//  Rank 0 sends 96 + 128 + 640 (t_cw) + 96 + 64 + 384 (t_twrw) = 1408 and receives
//  only the splits, 2 x 96 = 192. Rank 3 receives 96 + 4 x 64 + 4 x 320 = 1632 (t_cw)
//  and 96 + 4 x 32 + 4 x 192 = 992 (t_twrw) = 2624; from host 0 (ranks 0, 1) half of
//  the splits, 48 + 48, and 2 x (64 + 320 + 32 + 192) = 1216: 1312 cross-host.
TEST_CASE("a2a plan mode, case B: column-wise and table-row-wise, splits protocol", "[kjt][a2a][plan]") {
  std::string model = write_scratch("plan_b_model.yaml", R"(name: case-b
batch_size: 8
modules:
  - path: ebc
    tables:
      - {name: t_cw, num_embeddings: 50, embedding_dim: 64, feature_names: [f_a, f_b]}
      - {name: t_twrw, num_embeddings: 90, embedding_dim: 32, feature_names: [f_c]}
constraints:
  t_cw: {pooling_factors: [1.0, 4.0]}
  t_twrw: {pooling_factors: [6.0]}
)");
  std::string plan =
      plan_file("plan_b.json", R"("t_cw":{"sharding_type":"column_wise","shards":[)" + shard(1, 50) + "," +
                                   shard(3, 50, 32) + R"(]},"t_twrw":{"sharding_type":"table_row_wise","shards":[)" +
                                   shard(2, 45) + "," + shard(3, 45) + "]}");
  json out = run_ok("--plan '" + plan + "' --model '" + model + "' --protocol splits_then_tensors");
  check_fields(out, json::parse(R"({"protocol":"splits_then_tensors","total_bytes":5632,"cross_host_bytes":2816})"));
  REQUIRE(out["groups"].size() == 2);
  check_fields(out["groups"][0], json::parse(R"({"sharding_type":"column_wise",
    "feature_layout":[[],["f_a","f_b"],[],["f_a","f_b"]],
    "collectives":[
     {"phase":1,"name":"splits","dtype":"int64","elements":[[3,3,3,3],[3,3,3,3],[3,3,3,3],[3,3,3,3]],
      "total_bytes":384,"cross_rank_bytes":288,"cross_host_bytes":192},
     {"phase":2,"name":"lengths","elements":[[0,16,0,16],[0,16,0,16],[0,16,0,16],[0,16,0,16]],
      "total_bytes":512,"cross_rank_bytes":384,"cross_host_bytes":256},
     {"phase":2,"name":"values","elements":[[0,40,0,40],[0,40,0,40],[0,40,0,40],[0,40,0,40]],
      "total_bytes":2560,"cross_rank_bytes":1920,"cross_host_bytes":1280}]})"));
  check_fields(out["groups"][1], json::parse(R"({"sharding_type":"table_row_wise",
    "feature_layout":[[],[],["f_c"],["f_c"]],
    "collectives":[
     {"name":"splits","total_bytes":384,"cross_rank_bytes":288,"cross_host_bytes":192},
     {"name":"lengths","elements":[[0,0,8,8],[0,0,8,8],[0,0,8,8],[0,0,8,8]],
      "total_bytes":256,"cross_rank_bytes":192,"cross_host_bytes":128},
     {"name":"values","elements":[[0,0,24,24],[0,0,24,24],[0,0,24,24],[0,0,24,24]],
      "total_bytes":1536,"cross_rank_bytes":1152,"cross_host_bytes":768}]})"));
  check_fields(out["rank_bytes"][0], json::parse(R"({"sent_bytes":1408,"received_bytes":192})"));
  check_fields(out["rank_bytes"][3], json::parse(R"({"received_bytes":2624,"cross_host_received_bytes":1312})"));
}

TEST_CASE("a2a plan mode: a plan that does not fit the model is refused", "[kjt][a2a][plan]") {
  std::string model = write_scratch("plan_c_model.yaml", R"(name: case-c
modules:
  - path: ebc
    tables:
      - {name: t_one, num_embeddings: 10, embedding_dim: 8}
)");
  std::string plan =
      plan_file("plan_c.json", R"("t_other":{"sharding_type":"table_wise","shards":[)" + shard(5, 10) + "]}");
  auto r = run_shardplan("a2a --plan '" + plan + "' --model '" + model + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  std::string prefix = shardplan::testing::scratch_prefix();
  // The shard's rank 5 is outside the world size 4 (reported first: the model/plan
  // match is checked once the plan reads cleanly). Line 2 of the plan is
  //     "compute_device":"cuda","devices":[]},"plan":{"ebc":{"t_other":{..."shards":[{"rank":5
  // where {"t_other": opens at column 57 and "rank": at 109, so the 5 is at 116.
  CHECK(r.err == "error: " + prefix +
                     "plan_c.json:2:116: plan.ebc.t_other.shards[0].rank: rank 5 is outside the world size 4\n");
  // With the rank fixed, the tables that do not match are named from both sides: at
  // the plan mapping ("plan": ends at column 49, its { is at 50) and at the table's
  // own mapping ({"ebc": takes 50-56, {"t_other": 57-67, so its { is at 68).
  std::string plan2 =
      plan_file("plan_c2.json", R"("t_other":{"sharding_type":"table_wise","shards":[)" + shard(0, 10) + "]}");
  auto mismatch = run_shardplan("a2a --plan '" + plan2 + "' --model '" + model + "'");
  CHECK(mismatch.exit_code == 2);
  CHECK(mismatch.err ==
        "error: " + prefix + "plan_c2.json:2:50: plan: no sharding for table 't_one' of module 'ebc' (model " + model +
            ")\n" + "error: " + prefix +
            "plan_c2.json:2:68: plan.ebc.t_other: table 't_other' of module 'ebc' is not in the model " + model + "\n");
  // A sharded table must have shards ({"t_one": takes columns 57-65, its { is at 66).
  std::string plan3 = plan_file("plan_c3.json", R"("t_one":{"sharding_type":"table_wise","shards":[]})");
  auto no_shards = run_shardplan("a2a --plan '" + plan3 + "' --model '" + model + "'");
  CHECK(no_shards.exit_code == 2);
  CHECK(no_shards.err ==
        "error: " + prefix + "plan_c3.json:2:66: plan.ebc.t_one: table 't_one' has no shards in the plan\n");
  auto usage = run_shardplan("a2a --plan '" + plan + "'");
  CHECK(usage.exit_code == 2);
  CHECK(usage.err == "error: give either --input FILE, or --plan FILE with --model FILE (or with --config CASE)\n");
}

// With --config, the plan must be for the config's topology: its world size is what
// every collective is sized by.
TEST_CASE("a2a plan mode: a plan for another world size than the config's is refused", "[kjt][a2a][plan]") {
  const std::string config = shardplan::testing::kSourceDir + "/configs/quickstart.json";
  const std::string prefix = shardplan::testing::scratch_prefix();
  const std::string plan = prefix + "a2a-world-plan.json";
  REQUIRE(run_shardplan("plan --config '" + config + "' --stats none -o '" + plan + "'").exit_code == 0);
  CHECK(run_shardplan("a2a --plan '" + plan + "' --config '" + config + "'").exit_code == 0);
  std::string text = shardplan::testing::slurp(plan);
  // The plan's own topology (two spaces in), not the inputs' copy of the config.
  const std::string world = "\n  \"topology\": {\n    \"world_size\": 2,";
  REQUIRE(text.find(world) != std::string::npos);
  text.replace(text.find(world), world.size(), "\n  \"topology\": {\n    \"world_size\": 3,");
  const std::string other = shardplan::testing::write_scratch("a2a-world-plan3.json", text);
  auto r = run_shardplan("a2a --plan '" + other + "' --config '" + config + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("a2a-world-plan3.json:") != std::string::npos);
  CHECK(r.err.find(": topology.world_size: the plan is for world_size 3, the topology of " + config + " has 2\n") !=
        std::string::npos);
}

// A real plan: `shardplan plan` on the DLRM example (2 hosts x 8 GPUs), then the
// plan-derived mode. The expected totals are recomputed here from the plan file and
// the model file alone: per table and receiving shard, from each of the 16 sources,
// 1 feature x 2048 lengths (4 B) and pooling factor x 2048 x rows/N values (8 B).
TEST_CASE("a2a plan mode on a real plan of the DLRM example", "[kjt][a2a][plan]") {
  const std::string source = SHARDPLAN_SOURCE_DIR;
  const std::string model = source + "/configs/dlrm-criteo-terabyte.yaml";
  const std::string plan = shardplan::testing::scratch_prefix() + "dlrm_plan.json";
  auto planned = run_shardplan("plan --model '" + model + "' --topology '" + source +
                               "/configs/topology-2x8-80g.yaml' --stats none -o '" + plan + "'");
  REQUIRE(planned.exit_code == 0);
  json out = run_ok("--plan '" + plan + "' --model '" + model + "'");

  YAML::Node model_yaml = YAML::LoadFile(model);
  const double batch = model_yaml["batch_size"].as<double>();
  std::map<std::string, double> rows_of, pooling_of;
  std::map<std::string, std::string> feature_of;
  for (const auto& table : model_yaml["modules"][0]["tables"]) {
    rows_of[table["name"].as<std::string>()] = table["num_embeddings"].as<double>();
    feature_of[table["name"].as<std::string>()] = table["feature_names"][0].as<std::string>();
  }
  for (const auto& c : model_yaml["constraints"])
    if (c.second["pooling_factors"])
      pooling_of[c.first.as<std::string>()] = c.second["pooling_factors"][0].as<double>();

  json plan_json = json::parse(shardplan::testing::slurp(plan));
  const int world = 16, local = 8;
  std::map<std::string, double> expected_total, expected_cross_host;  // by sharding type
  std::map<std::string, std::set<int>> receivers_of_feature;
  for (const auto& [name, table] : plan_json["plan"]["sparse.ebc"].items()) {
    std::string type = table["sharding_type"];
    if (type == "data_parallel") continue;
    double pooling = pooling_of.count(name) ? pooling_of[name] : 1.0;
    const std::string& feature = feature_of[name];
    std::vector<std::pair<int, double>> receivers;  // rank, share of the values
    if (type == "row_wise") {
      std::vector<double> share(world, 0.0);
      for (const auto& s : table["shards"]) share[s["rank"].get<int>()] += s["sizes"][0].get<double>() / rows_of[name];
      for (int r = 0; r < world; ++r) receivers.push_back({r, share[r]});
    } else {
      for (const auto& s : table["shards"])
        receivers.push_back({s["rank"].get<int>(), s["sizes"][0].get<double>() / rows_of[name]});
    }
    for (const auto& [rank, share] : receivers) {
      receivers_of_feature[feature].insert(rank);
      double per_source = batch * 4 + pooling * batch * share * 8;  // lengths + values bytes
      expected_total[type] += per_source * world;
      expected_cross_host[type] += per_source * (world - local);  // the sources on the other host
    }
  }
  REQUIRE(!expected_total.empty());
  std::size_t checked = 0;
  for (const auto& group : out["groups"]) {
    std::string type = group["sharding_type"];
    double total = 0, cross_host = 0;
    for (const auto& c : group["collectives"]) {
      total += c["total_bytes"].get<double>();
      cross_host += c["cross_host_bytes"].get<double>();
    }
    INFO(type);
    if (type == "data_parallel") {
      CHECK(group["collectives"].empty());
      continue;
    }
    CHECK(total == Approx(expected_total[type]));
    CHECK(cross_host == Approx(expected_cross_host[type]));
    for (std::size_t r = 0; r < group["feature_layout"].size(); ++r)
      for (const auto& feature : group["feature_layout"][r]) {
        CHECK(receivers_of_feature[feature.get<std::string>()].count(static_cast<int>(r)) == 1);
        ++checked;
      }
  }
  std::size_t receivers = 0;
  for (const auto& [feature, ranks] : receivers_of_feature) receivers += ranks.size();
  CHECK(checked == receivers);
}
