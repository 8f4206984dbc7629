// Issue 17: four behaviours where shardplan differed from torchrec's planner on
// random models, and the edge inputs torchrec accepts. Each case is small and
// our own; the expectation is torchrec's rule as read in its source (torchrec
// commit a48cef79, torchrec/distributed/planner/ unless said otherwise), and
// every test runs the real binary.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

using nlohmann::json;

// A model "parity17" with one table "ebc.t0" of 1000 x `dim` (extra table keys
// and its constraint as JSON text) on `topology` with `planner` (JSON text).
std::string one_table_case(const std::string& table_extra, const std::string& constraint, const std::string& topology,
                           const std::string& planner = "{}", int dim = 16) {
  return R"({"model": {"name": "parity17", "modules": [{"path": "ebc", "tables": [)"
         R"({"name": "t0", "num_embeddings": 1000, "embedding_dim": )" +
         std::to_string(dim) + table_extra + "}]}]" +
         (constraint.empty() ? "" : R"(, "constraints": {"t0": )" + constraint + "}") + R"(}, "topology": )" +
         topology + R"(, "planner": )" + planner + "}";
}

struct Planned {
  RunResult run;
  bool written = false;
  json plan;  // the plan file, when written
};

// Writes `case_text` as `name` and runs `shardplan plan` on it (extra flags appended).
Planned plan_case(const std::string& name, const std::string& case_text, const std::string& flags = "--stats none") {
  const std::string path = write_scratch(name, case_text);
  const std::string out = scratch_prefix() + name + ".plan.json";
  std::filesystem::remove(out);
  Planned p;
  p.run = run_shardplan("plan --config " + path + " -o " + out + " " + flags);
  p.written = std::filesystem::exists(out);
  if (p.written) p.plan = json::parse(slurp(out));
  return p;
}

// stderr without the EmbeddingStats table (its lines start with '#').
std::string without_stats(const std::string& err) {
  std::string out;
  for (std::size_t start = 0; start < err.size();) {
    std::size_t end = err.find('\n', start);
    if (end == std::string::npos) end = err.size();
    if (err[start] != '#') out += err.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

// The first line of a text.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// ---------------------------------------------------------------------------
// 1. A constraint without pooling_factors on a multi-feature table.
// torchrec: enumerators.py _extract_constraints_for_param starts from
// input_lengths = [POOLING_FACTOR] and, for a constrained table, takes
// constraints[name].pooling_factors, whose dataclass default is [POOLING_FACTOR]
// (types.py ParameterConstraints): one input whatever the number of features.
// shard_estimators.py EmbeddingPerfEstimator.estimate then defaults num_poolings
// and batch_sizes to len(input_lengths) entries and asserts the three match.

TEST_CASE("parity 17.1: a constraint without pooling_factors gives a multi-feature table one input", "[parity17]") {
  const std::string topology = R"({"world_size": 2})";
  const std::string three_features = R"(, "feature_names": ["f1", "f2", "f3"])";
  Planned multi =
      plan_case("p1_multi.json", one_table_case(three_features, R"({"sharding_types": ["table_wise"]})", topology));
  INFO(multi.run.err);
  REQUIRE(multi.run.exit_code == 0);
  // The estimates depend on input_lengths only, so the plan equals the one of the
  // same table with a single feature.
  Planned single = plan_case("p1_single.json", one_table_case("", R"({"sharding_types": ["table_wise"]})", topology));
  REQUIRE(single.run.exit_code == 0);
  CHECK(multi.plan["plan"] == single.plan["plan"]);
  CHECK(multi.plan["per_rank"] == single.plan["per_rank"]);

  RunResult options = run_shardplan("enumerate --config " + scratch_prefix() + "p1_multi.json");
  REQUIRE(options.exit_code == 0);
  // Named: a range-for over a member of a temporary reads freed memory (ASan).
  const json enumerated = json::parse(options.out);
  for (const auto& option : enumerated["options"]) CHECK(option["input_lengths"] == json::array({1.0}));
}

TEST_CASE("parity 17.1: num_poolings and batch_sizes of one entry go with the default input", "[parity17]") {
  const std::string three_features = R"(, "feature_names": ["f1", "f2", "f3"])";
  Planned ok = plan_case(
      "p1_one.json",
      one_table_case(three_features, R"({"num_poolings": [2.0], "batch_sizes": [64]})", R"({"world_size": 2})"));
  INFO(ok.run.err);
  CHECK(ok.run.exit_code == 0);
  // Three entries against the one default input: torchrec's assert would fail.
  Planned refused = plan_case(
      "p1_three.json", one_table_case(three_features, R"({"num_poolings": [1.0, 1.0, 1.0]})", R"({"world_size": 2})"));
  CHECK(refused.run.exit_code == 2);
  CHECK_FALSE(refused.written);
  CHECK(refused.run.err ==
        "error: " + scratch_prefix() +
            "p1_three.json:1:211: model.constraints.t0.num_poolings: expected 1 entry, found 3: without "
            "pooling_factors table 't0' has torchrec's one default input ([1.0]) and torchrec would fail its assert "
            "that pooling_factors, num_poolings and batch_sizes match; give pooling_factors with 3 entries (one per "
            "feature) or one entry here\n");
}

// ---------------------------------------------------------------------------
// 2. local_world_size that does not divide world_size, or exceeds it.
// torchrec: types.py Topology keeps any local_world_size (`local_world_size if
// local_world_size else world_size`); partitioners.py
// GreedyPerfPartitioner._get_host_level_devices makes world_size //
// local_world_size hosts of local_world_size consecutive ranks; sharding_plan.py
// calculate_shard_sizes_and_offsets splits table_row_wise rows over
// local_world_size; shard_estimators.py _get_twrw_sharding_perf divides by
// world_size / local_world_size (a float) and builds the inter-host group of
// int(world_size / local_world_size) ranks.

TEST_CASE("parity 17.2: 6 ranks with local_world_size 4 make one host of ranks 0-3", "[parity17]") {
  Planned p = plan_case("p2_6x4.json", one_table_case("", R"({"sharding_types": ["table_row_wise"]})",
                                                      R"({"world_size": 6, "local_world_size": 4})"));
  INFO(p.run.err);
  REQUIRE(p.run.exit_code == 0);
  const json& t0 = p.plan["plan"]["ebc"]["t0"];
  CHECK(t0["ranks"] == json::array({0, 1, 2, 3}));
  for (const auto& shard : t0["shards"]) CHECK(shard["sizes"] == json::array({250, 16}));
  REQUIRE(p.plan["per_rank"].size() == 6);
  CHECK(p.plan["per_rank"][4]["num_shards"] == 0);
  CHECK(p.plan["per_rank"][5]["num_shards"] == 0);
  // fwd_comms of _get_twrw_sharding_perf: the reduce-scatter of batch_outputs *
  // world_size * dim * 4 bytes over intra_host_bw (world_size=local_world_size=4),
  // plus the all-to-all of batch_outputs * (6 / 4) * dim * 4 bytes over the
  // bandwidth of int(6 / 4) = 1 rank per host, which get_bw answers with
  // intra_host_bw too (1 <= 1). batch_outputs = 512 (pooled, one input of 1.0).
  const double intra_host_bw = 600.0 * 1024 * 1024 * 1024 / 1000;  // "600 GB/s", bytes/ms
  const double expected = (512.0 * 6 * 16 * 4 + 512.0 * 1.5 * 16 * 4) / intra_host_bw;
  CHECK(t0["shards"][0]["perf"]["fwd_comms"].get<double>() == Approx(expected).epsilon(1e-12));
}

TEST_CASE("parity 17.2: local_world_size beyond world_size leaves no host for table_row_wise", "[parity17]") {
  // 4 // 8 = 0 hosts: _cohost_partition finds no host and raises PlannerError for
  // every proposal, so plan() ends with "no plan" (STRICT_CONSTRAINTS: the
  // storage would fit).
  Planned p = plan_case("p2_4x8.json", one_table_case("", R"({"sharding_types": ["table_row_wise"]})",
                                                      R"({"world_size": 4, "local_world_size": 8})"));
  CHECK(p.run.exit_code == 1);
  CHECK_FALSE(p.written);
  CHECK(p.run.err.rfind("error: no feasible plan (STRICT_CONSTRAINTS, after ", 0) == 0);
  CHECK(p.run.err.find("last partitioner error: can't find a host for sharding option group") != std::string::npos);
}

TEST_CASE("parity 17.2: grid_shard with no whole host is torchrec's crash, reported with exit 1", "[parity17]") {
  // _multi_hosts_partition reads len(_host_level_devices[0]) of an empty list:
  // IndexError, not a PlannerError, so plan() dies without stats.
  Planned p = plan_case("p2_grid.json",
                        one_table_case("", R"({"sharding_types": ["grid_shard"], "min_partition": 8})",
                                       R"({"world_size": 4, "local_world_size": 8})"),
                        "--stats text");
  CHECK(p.run.exit_code == 1);
  CHECK_FALSE(p.written);
  CHECK(p.run.err ==
        "error: torchrec's planner crashes on this input (IndexError in partitioners.py "
        "GreedyPerfPartitioner._multi_hosts_partition): grid_shard is placed on whole hosts, and world_size 4 "
        "// local_world_size 8 = 0 hosts; grid_shard options of: ebc.t0. Give a local_world_size of at most the "
        "world size, or take grid_shard out of these tables' sharding_types\n");
}

TEST_CASE("parity 17.2: torchrec crashes only if a proposal's partitioning reaches the grid_shard option",
          "[parity17]") {
  // partitioners.py GreedyPerfPartitioner.partition places groups by storage,
  // largest first; _cohost_partition raises PlannerError (no host) for the
  // table_row_wise option. A larger table_row_wise table fails every proposal
  // before the grid_shard one is reached: "no plan", with stats. A smaller one
  // lets the grid_shard option come first: the crash.
  auto two_tables = [](int twrw_rows) {
    return R"({"model": {"name": "g", "modules": [{"path": "ebc", "tables": [)"
           R"({"name": "t_grid", "num_embeddings": 1000, "embedding_dim": 16}, )"
           R"({"name": "t_twrw", "num_embeddings": )" +
           std::to_string(twrw_rows) +
           R"(, "embedding_dim": 16}]}], )"
           R"("constraints": {"t_grid": {"sharding_types": ["grid_shard"], "compute_kernels": ["fused"], "min_partition": 8}, )"
           R"("t_twrw": {"sharding_types": ["table_row_wise"], "compute_kernels": ["fused"]}}}, )"
           R"("topology": {"world_size": 4, "local_world_size": 8}, "planner": {}})";
  };
  Planned big = plan_case("p2_twrw_big.json", two_tables(10'000'000), "--stats text");
  CHECK(big.run.exit_code == 1);
  CHECK(big.run.err.find("--- Planner Statistics ---") != std::string::npos);
  CHECK(without_stats(big.run.err).rfind("error: no feasible plan (STRICT_CONSTRAINTS, after ", 0) == 0);
  Planned small = plan_case("p2_twrw_small.json", two_tables(10), "--stats text");
  CHECK(small.run.exit_code == 1);
  CHECK(small.run.err.rfind("error: torchrec's planner crashes on this input (IndexError", 0) == 0);
}

TEST_CASE("parity 17.2: grid_shard on 6 ranks in hosts of 4 uses the one whole host", "[parity17]") {
  Planned p =
      plan_case("p2_grid64.json", one_table_case("", R"({"sharding_types": ["grid_shard"], "min_partition": 8})",
                                                 R"({"world_size": 6, "local_world_size": 4})"));
  INFO(p.run.err);
  REQUIRE(p.run.exit_code == 0);
  // _calculate_grid_shard_sizes_and_offsets: 4 row blocks (local_world_size) x 2
  // column blocks of 8, placed on host 0 twice (case one of _multi_hosts_partition:
  // 8 shards / 4 = 2 hosts wanted, 1 available, hosts used round-robin).
  const json& t0 = p.plan["plan"]["ebc"]["t0"];
  CHECK(t0["ranks"] == json::array({0, 1, 2, 3, 0, 1, 2, 3}));
}

TEST_CASE("parity 17.2: --world-size and --local-world-size take what the topology file takes", "[parity17]") {
  const std::string constraint = R"({"sharding_types": ["table_row_wise"]})";
  Planned from_file =
      plan_case("p2_file.json", one_table_case("", constraint, R"({"world_size": 6, "local_world_size": 4})"));
  REQUIRE(from_file.run.exit_code == 0);
  Planned from_flags = plan_case("p2_flags.json", one_table_case("", constraint, R"({"world_size": 2})"),
                                 "--stats none --world-size 6 --local-world-size 4");
  INFO(from_flags.run.err);
  REQUIRE(from_flags.run.exit_code == 0);
  CHECK(from_flags.plan == from_file.plan);
}

// ---------------------------------------------------------------------------
// 3. Storage reservation and enumeration both fail. planners.py
// EmbeddingShardingPlanner.plan calls self._storage_reservation.reserve(...)
// before self._enumerator.enumerate(...); storage_reservations.py
// HeuristicalStorageReservation.reserve raises PlannerError INSUFFICIENT_STORAGE
// when devices[0].storage.hbm goes negative. No stats are logged: the raise
// comes before stats.log.

TEST_CASE("parity 17.3: a failed reservation is reported before a table without options", "[parity17]") {
  // data_parallel only allows the dense kernel, so fused leaves no option
  // (enumerate raises RuntimeError); 8 GiB cannot hold 2e9 dense parameters x 4
  // bytes x parameter_multiplier 6 (reserve raises first).
  const std::string model =
      R"({"model": {"name": "p3", "modules": [{"path": "ebc", "tables": [{"name": "t0", "num_embeddings": 1000, "embedding_dim": 16}]}],)"
      R"( "dense": {"parameters": 2000000000}, "constraints": {"t0": {"sharding_types": ["data_parallel"], "compute_kernels": ["fused"]}}},)"
      R"( "topology": {"world_size": 2, "hbm_cap": "8 GiB"}, "planner": {}})";
  Planned p = plan_case("p3.json", model, "--stats text");
  CHECK(p.run.exit_code == 1);
  CHECK_FALSE(p.written);
  CHECK(first_line(p.run.err) == "error: no feasible plan (INSUFFICIENT_STORAGE, after 0 proposals)");
  CHECK(p.run.err.find("no sharding option") == std::string::npos);
  CHECK(p.run.err.find("Planner Statistics") == std::string::npos);

  // With room for the dense part, the enumeration's RuntimeError is what remains.
  std::string roomy = model;
  roomy.replace(roomy.find("8 GiB"), 5, "2 TiB");
  Planned q = plan_case("p3_roomy.json", roomy, "--stats text");
  CHECK(q.run.exit_code == 1);
  CHECK(q.run.err.rfind("error: no sharding option: No available sharding type and compute kernel combination", 0) ==
        0);
}

// ---------------------------------------------------------------------------
// 4. Every table dropped by device_group. enumerators.py
// EmbeddingEnumerator.enumerate skips a table whose device_group differs from the
// compute device; planners.py EmbeddingShardingPlanner.plan then returns
// ShardingPlan({}) right after `if not search_space:`, before any stats.log.

TEST_CASE("parity 17.4: a model whose every table is dropped by device_group plans to nothing", "[parity17]") {
  for (const std::string stats : {"text", "json"}) {
    Planned p = plan_case("p4_" + stats + ".json",
                          one_table_case("", R"({"device_group": "cpu"})", R"({"world_size": 2})"), "--stats " + stats);
    INFO(p.run.err);
    REQUIRE(p.run.exit_code == 0);
    REQUIRE(p.written);
    CHECK(p.plan["plan"] == json::object());
    CHECK(p.plan["per_rank"] == json::array());  // no per-rank figures
    CHECK(p.plan["reserved"].size() == 2);       // reserve() did run
    CHECK(p.plan["summary"]["num_proposals"] == 0);
    CHECK(p.run.err.empty());  // no statistics
  }
}

// ---------------------------------------------------------------------------
// Edge inputs torchrec accepts (docs/parity.md, "Inputs torchrec accepts"): each plans
// like the input that leaves the key out, or as torchrec computes it.

TEST_CASE("parity 17 inputs: zero and empty values are torchrec's 'not given'", "[parity17]") {
  const std::string base_topology = R"({"world_size": 4})";
  struct Variant {
    std::string what, table_extra, constraint, topology, planner, same_as_constraint;
    int dim = 16;
  };
  // planners.py: `batch_size if batch_size else BATCH_SIZE`; types.py Topology:
  // `local_world_size if local_world_size else world_size`; sharding_plan.py
  // _get_block_size_for_cw_shard: `if column_wise_shard_dim` else MIN_CW_DIM;
  // enumerators.py _filter_sharding_types / _filter_compute_kernels: `if not
  // constraints.sharding_types` / `compute_kernels`; planners.py: `if proposer`.
  const std::vector<Variant> variants = {
      {"local_world_size 0", "", "", R"({"world_size": 4, "local_world_size": 0})", "{}", ""},
      // 512 columns: 4 shards of the default 128.
      {"min_partition 0", "", R"({"sharding_types": ["column_wise"], "min_partition": 0})", base_topology, "{}",
       R"({"sharding_types": ["column_wise"]})", 512},
      {"empty sharding_types", "", R"({"sharding_types": []})", base_topology, "{}", R"({})"},
      {"empty compute_kernels", "", R"({"compute_kernels": []})", base_topology, "{}", R"({})"},
      {"empty feature_names", R"(, "feature_names": [])", "", base_topology, "{}", ""},
      {"empty proposers", "", "", base_topology, R"({"proposers": []})", ""},
      // shard_estimators.py / stats.py: `if constraints and ... .num_poolings` (and batch_sizes).
      {"empty num_poolings and batch_sizes", "", R"({"num_poolings": [], "batch_sizes": []})", base_topology, "{}",
       R"({})"},
  };
  for (const auto& v : variants) {
    INFO(v.what);
    Planned given = plan_case("edge.json", one_table_case(v.table_extra, v.constraint, v.topology, v.planner, v.dim));
    INFO(given.run.err);
    REQUIRE(given.run.exit_code == 0);
    Planned left_out =
        plan_case("edge_default.json", one_table_case("", v.same_as_constraint, base_topology, "{}", v.dim));
    REQUIRE(left_out.run.exit_code == 0);
    CHECK(given.plan == left_out.plan);
  }
  // batch_size: 0 sits in the model, outside one_table_case.
  std::string zero = one_table_case("", "", base_topology);
  zero.replace(zero.find(R"("name": "parity17",)"), 19, R"("name": "parity17", "batch_size": 0,)");
  Planned zero_batch = plan_case("edge_batch0.json", zero);
  REQUIRE(zero_batch.run.exit_code == 0);
  Planned batch_512 = plan_case("edge_batch512.json", one_table_case("", "", base_topology));
  CHECK(zero_batch.plan == batch_512.plan);
}

TEST_CASE("parity 17 inputs: num_poolings 0.0 and percentage 1.0 are taken as they are", "[parity17]") {
  // shard_estimators.py _get_tw_sharding_perf: batch_outputs = sum(num_poolings x
  // batch_sizes) = 0 and batch_inputs = sum(input_lengths x num_poolings x
  // batch_sizes) = 0, so every perf part is 0. storage_reservations.py
  // _reserve_storage_percentage: hbm = int((1 - 1.0) * hbm) = 0 (asserts only
  // 0 <= percentage <= 1); fused_uvm keeps the table in DDR.
  Planned p = plan_case(
      "edge_np0.json",
      one_table_case(
          "", R"({"sharding_types": ["table_wise"], "compute_kernels": ["fused_uvm"], "num_poolings": [0.0]})",
          R"({"world_size": 2})", R"({"storage_reservation": {"policy": "fixed_percentage", "percentage": 1.0}})"));
  INFO(p.run.err);
  REQUIRE(p.run.exit_code == 0);
  for (const auto& device : p.plan["reserved"]) CHECK(device["hbm"] == 0);
  const json& perf = p.plan["plan"]["ebc"]["t0"]["shards"][0]["perf"];
  for (const char* part : {"fwd_compute", "fwd_comms", "bwd_compute", "bwd_comms", "prefetch_compute"})
    CHECK(perf[part].get<double>() == 0.0);

  Planned flag = plan_case(
      "edge_np0_flag.json",
      one_table_case("",
                     R"({"sharding_types": ["table_wise"], "compute_kernels": ["fused_uvm"], "num_poolings": [0.0]})",
                     R"({"world_size": 2})", R"({"storage_reservation": {"policy": "fixed_percentage"}})"),
      "--stats none --reservation-percentage 1.0");
  INFO(flag.run.err);
  REQUIRE(flag.run.exit_code == 0);
  for (const auto& device : flag.plan["reserved"]) CHECK(device["hbm"] == 0);

  // An empty pooling_factors is no input at all for torchrec (input_lengths = []);
  // docs/formats/model.md wants one per feature: refused, saying what torchrec would do.
  Planned no_inputs =
      plan_case("edge_pf.json", one_table_case("", R"({"pooling_factors": []})", R"({"world_size": 2})"));
  CHECK(no_inputs.run.exit_code == 2);
  CHECK(no_inputs.run.err == "error: " + scratch_prefix() +
                                 "edge_pf.json:1:177: model.constraints.t0.pooling_factors: expected 1 entry (one per "
                                 "feature of table 't0': t0), found 0; torchrec would plan the table with no input at "
                                 "all (nothing looked up, no input or output traffic)\n");

  // Past 1, torchrec's assert fails: refused while reading, as before.
  Planned over = plan_case("edge_pct.json", one_table_case("", "", R"({"world_size": 2})",
                                                           R"({"storage_reservation": {"percentage": 1.5}})"));
  CHECK(over.run.exit_code == 2);
  CHECK(over.run.err == "error: " + scratch_prefix() +
                            "edge_pct.json:1:217: planner.storage_reservation.percentage: expected a fraction in "
                            "[0, 1], found 1.5\n");
}

}  // namespace
}  // namespace shardplan::testing
