// The spec's worked examples V1-V4 (docs/formats/a2a.md) through the real binary;
// inputs and expected numbers are the spec's, compared field by field.
#include <catch2/catch.hpp>

#include <cstdio>

#include "config/config_test_util.h"
#include "kjt/a2a_test_util.h"

namespace {

using nlohmann::json;
using shardplan::testing::check_fields;
using shardplan::testing::run_a2a;

json run_ok(const std::string& name, const std::string& input) {
  auto r = run_a2a(name, input);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.empty());
  return json::parse(r.out);
}

const std::string kV1Inputs = R"("inputs":[
 {"rank":0,"keys":["A","B","C"],"lengths":[[1,0,2],[0,1,1],[1,1,0]],"values":["A.V0","A.V1","A.V2","B.V0","B.V1","C.V0","C.V1"]},
 {"rank":1,"keys":["A","B","C"],"lengths":[[1,1,0],[0,1,2],[1,1,0]],"values":["A.V3","A.V4","B.V2","B.V3","B.V4","C.V2","C.V3"]}]})";

const json kV1Outputs = json::parse(R"([
 {"rank":0,"keys":["A","B"],"stride":6,"stride_per_rank":[3,3],"recat":[0,2,1,3],
  "lengths":[[1,0,2,1,1,0],[0,1,1,0,1,2]],
  "values":["A.V0","A.V1","A.V2","A.V3","A.V4","B.V0","B.V1","B.V2","B.V3","B.V4"],"weights":null},
 {"rank":1,"keys":["C"],"stride":6,"stride_per_rank":[3,3],"recat":[0,1],
  "lengths":[[1,1,0,1,1,0]],"values":["C.V0","C.V1","C.V2","C.V3"],"weights":null}])");

}  // namespace

TEST_CASE("a2a V1: the seed's example", "[kjt][a2a]") {
  json out = run_ok("v1.json", R"({"splits":[2,1],)" + kV1Inputs);
  json expected = json::parse(R"({"world_size":2,"stagger":1,"source_order":[0,1],"protocol":"lengths_then_values",
 "collectives":[
 {"phase":1,"name":"lengths","dtype":"int32","elements":[[6,3],[6,3]],"bytes":[[24,12],[24,12]],"total_bytes":72,"cross_rank_bytes":36},
 {"phase":2,"name":"values","dtype":"int64","elements":[[5,2],[5,2]],"bytes":[[40,16],[40,16]],"total_bytes":112,"cross_rank_bytes":56}]})");
  expected["outputs"] = kV1Outputs;
  check_fields(out, expected);
  // Per-rank totals are the row and column sums of both byte matrices.
  check_fields(out["rank_bytes"], json::parse(R"([
    {"rank":0,"sent_bytes":92,"received_bytes":128,"cross_rank_sent_bytes":28,"cross_rank_received_bytes":64},
    {"rank":1,"sent_bytes":92,"received_bytes":56,"cross_rank_sent_bytes":64,"cross_rank_received_bytes":28}])"));
}

TEST_CASE("a2a V1 as YAML gives the same document", "[kjt][a2a]") {
  json from_json = run_ok("v1y.json", R"({"splits":[2,1],)" + kV1Inputs);
  json from_yaml = run_ok("v1.yaml", R"(splits: [2, 1]
inputs:
  - rank: 1
    keys: [A, B, C]
    lengths: [[1, 1, 0], [0, 1, 2], [1, 1, 0]]
    values: [A.V3, A.V4, B.V2, B.V3, B.V4, C.V2, C.V3]
  - rank: 0
    keys: [A, B, C]
    lengths: [[1, 0, 2], [0, 1, 1], [1, 1, 0]]
    values: [A.V0, A.V1, A.V2, B.V0, B.V1, C.V0, C.V1]
)");
  CHECK(from_yaml == from_json);
}

TEST_CASE("a2a V1 with the splits_then_tensors protocol", "[kjt][a2a]") {
  json out = run_ok("v1s.json", R"({"splits":[2,1],"protocol":"splits_then_tensors",)" + kV1Inputs);
  json expected = json::parse(R"({"protocol":"splits_then_tensors","collectives":[
 {"phase":1,"name":"splits","dtype":"int64","elements":[[3,3],[3,3]],"bytes":[[24,24],[24,24]],"total_bytes":96,"cross_rank_bytes":48},
 {"phase":2,"name":"lengths","dtype":"int32","elements":[[6,3],[6,3]],"bytes":[[24,12],[24,12]],"total_bytes":72,"cross_rank_bytes":36},
 {"phase":2,"name":"values","dtype":"int64","elements":[[5,2],[5,2]],"bytes":[[40,16],[40,16]],"total_bytes":112,"cross_rank_bytes":56}]})");
  expected["outputs"] = kV1Outputs;
  check_fields(out, expected);
}

TEST_CASE("a2a V2: weighted", "[kjt][a2a]") {
  json out = run_ok("v2.json", R"({"splits":[1,2],"inputs":[
 {"rank":0,"keys":["X","Y","Z"],"lengths":[[1,2],[0,1],[2,0]],"values":["x0","x1","x2","y0","z0","z1"],"weights":[0.5,1.0,1.5,2.0,2.5,3.0]},
 {"rank":1,"keys":["X","Y","Z"],"lengths":[[0,1],[1,1],[0,0]],"values":["x3","y1","y2"],"weights":[4.0,4.5,5.0]}]})");
  check_fields(out, json::parse(R"({"world_size":2,"outputs":[
 {"rank":0,"keys":["X"],"stride":4,"stride_per_rank":[2,2],"recat":[0,1],"lengths":[[1,2,0,1]],
  "values":["x0","x1","x2","x3"],"weights":[0.5,1.0,1.5,4.0]},
 {"rank":1,"keys":["Y","Z"],"stride":4,"stride_per_rank":[2,2],"recat":[0,2,1,3],"lengths":[[0,1,1,1],[2,0,0,0]],
  "values":["y0","y1","y2","z0","z1"],"weights":[2.0,4.5,5.0,2.5,3.0]}],
 "collectives":[
 {"phase":1,"name":"lengths","dtype":"int32","elements":[[2,4],[2,4]],"bytes":[[8,16],[8,16]],"total_bytes":48,"cross_rank_bytes":24},
 {"phase":2,"name":"values","dtype":"int64","elements":[[3,3],[1,2]],"bytes":[[24,24],[8,16]],"total_bytes":72,"cross_rank_bytes":32},
 {"phase":2,"name":"weights","dtype":"float32","elements":[[3,3],[1,2]],"bytes":[[12,12],[4,8]],"total_bytes":36,"cross_rank_bytes":16}]})"));
}

namespace {
const std::string kV3Inputs = R"("inputs":[
 {"rank":0,"keys":["A","B","C","D"],"lengths":[[1],[0],[1],[2]],"values":["A0.0","C0.0","D0.0","D0.1"]},
 {"rank":1,"keys":["A","B","C","D"],"lengths":[[2],[1],[0],[1]],"values":["A1.0","A1.1","B1.0","D1.0"]},
 {"rank":2,"keys":["A","B","C","D"],"lengths":[[0],[1],[1],[1]],"values":["B2.0","C2.0","D2.0"]},
 {"rank":3,"keys":["A","B","C","D"],"lengths":[[1],[2],[1],[0]],"values":["A3.0","B3.0","B3.1","C3.0"]}]})";

const json kV3Collectives = json::parse(R"([
 {"phase":1,"name":"lengths","dtype":"int32","elements":[[2,1,0,1],[2,1,0,1],[2,1,0,1],[2,1,0,1]],
  "bytes":[[8,4,0,4],[8,4,0,4],[8,4,0,4],[8,4,0,4]],"total_bytes":64,"cross_rank_bytes":48},
 {"phase":2,"name":"values","dtype":"int64","elements":[[1,1,0,2],[3,0,0,1],[1,1,0,1],[3,1,0,0]],
  "bytes":[[8,8,0,16],[24,0,0,8],[8,8,0,8],[24,8,0,0]],"total_bytes":120,"cross_rank_bytes":112}])");
}  // namespace

TEST_CASE("a2a V3: stagger 2, W=4, one empty destination", "[kjt][a2a]") {
  json out = run_ok("v3.json", R"({"splits":[2,1,0,1],"stagger":2,)" + kV3Inputs);
  json expected = json::parse(R"({"world_size":4,"stagger":2,"source_order":[0,2,1,3],"outputs":[
 {"rank":0,"keys":["A","B"],"stride":4,"stride_per_rank":[1,1,1,1],"recat":[0,4,2,6,1,5,3,7],
  "lengths":[[1,0,2,1],[0,1,1,2]],"values":["A0.0","A1.0","A1.1","A3.0","B2.0","B1.0","B3.0","B3.1"],"weights":null},
 {"rank":1,"keys":["C"],"stride":4,"stride_per_rank":[1,1,1,1],"recat":[0,2,1,3],
  "lengths":[[1,1,0,1]],"values":["C0.0","C2.0","C3.0"],"weights":null},
 {"rank":2,"keys":[],"stride":4,"stride_per_rank":[1,1,1,1],"recat":null,"lengths":[],"values":[],"weights":null},
 {"rank":3,"keys":["D"],"stride":4,"stride_per_rank":[1,1,1,1],"recat":[0,2,1,3],
  "lengths":[[2,1,1,0]],"values":["D0.0","D0.1","D2.0","D1.0"],"weights":null}]})");
  expected["collectives"] = kV3Collectives;
  check_fields(out, expected);
}

TEST_CASE("a2a V3 with stagger 1: only the concatenation order changes", "[kjt][a2a]") {
  json out = run_ok("v3s1.json", R"({"splits":[2,1,0,1],"stagger":1,)" + kV3Inputs);
  check_fields(out["source_order"], json::parse("[0,1,2,3]"));
  check_fields(out["outputs"][0], json::parse(R"({"recat":[0,2,4,6,1,3,5,7],"lengths":[[1,2,0,1],[0,1,1,2]],
    "values":["A0.0","A1.0","A1.1","A3.0","B1.0","B2.0","B3.0","B3.1"]})"));
  check_fields(out["outputs"][1], json::parse(R"({"lengths":[[1,0,1,1]],"values":["C0.0","C2.0","C3.0"]})"));
  check_fields(out["outputs"][3], json::parse(R"({"lengths":[[2,1,1,0]],"values":["D0.0","D0.1","D1.0","D2.0"]})"));
  check_fields(out["collectives"], kV3Collectives);
}

TEST_CASE("a2a V4: different batch sizes per source", "[kjt][a2a]") {
  json out = run_ok("v4.json", R"({"splits":[1,1],"inputs":[
 {"rank":0,"keys":["P","Q"],"lengths":[[1,1],[0,2]],"values":["p0","p1","q0","q1"]},
 {"rank":1,"keys":["P","Q"],"lengths":[[3],[1]],"values":["p2","p3","p4","q2"]}]})");
  check_fields(out, json::parse(R"({"outputs":[
 {"rank":0,"keys":["P"],"stride":3,"stride_per_rank":[2,1],"recat":[0,1],"lengths":[[1,1,3]],
  "values":["p0","p1","p2","p3","p4"],"weights":null},
 {"rank":1,"keys":["Q"],"stride":3,"stride_per_rank":[2,1],"recat":[0,1],"lengths":[[0,2,1]],
  "values":["q0","q1","q2"],"weights":null}],
 "collectives":[
 {"phase":0,"name":"batch_sizes","dtype":"int32","elements":[[1,1],[1,1]],"bytes":[[4,4],[4,4]],"total_bytes":16,"cross_rank_bytes":8},
 {"phase":1,"name":"lengths","dtype":"int32","elements":[[2,2],[1,1]],"bytes":[[8,8],[4,4]],"total_bytes":24,"cross_rank_bytes":12},
 {"phase":2,"name":"values","dtype":"int64","elements":[[2,2],[3,1]],"bytes":[[16,16],[24,8]],"total_bytes":64,"cross_rank_bytes":40}]})"));
}

TEST_CASE("a2a W=1: the input comes back unchanged and no collective is issued", "[kjt][a2a]") {
  json out = run_ok("w1.json", R"({"splits":[2],"inputs":[
 {"rank":0,"keys":["A","B"],"lengths":[[1,0],[2,1]],"values":[7,8,9,10],"weights":[0.25,1,2,3]}]})");
  check_fields(out, json::parse(R"({"world_size":1,"source_order":[0],"collectives":[],"outputs":[
 {"rank":0,"keys":["A","B"],"stride":2,"stride_per_rank":[2],"recat":[0,1],"lengths":[[1,0],[2,1]],
  "values":[7,8,9,10],"weights":[0.25,1,2,3]}]})"));
}

TEST_CASE("a2a: feature_layout, dtypes, batch size 0 and --output", "[kjt][a2a]") {
  std::string out_path = shardplan::testing::scratch_prefix() + "a2a_out.json";
  std::remove(out_path.c_str());
  auto r = run_a2a("layout.json", R"({"feature_layout":[["P"],["Q"]],"protocol":"splits_then_tensors",
 "dtypes":{"lengths":"int64","values":"int32","weights":"float16"},"inputs":[
 {"rank":0,"keys":["P","Q"],"lengths":[[1,1],[0,2]],"values":["p0","p1","q0","q1"],"weights":[1,2,3,4]},
 {"rank":1,"keys":["P","Q"],"lengths":[[],[]],"values":[],"weights":[]}]})",
                   "-o '" + out_path + "'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  json out = json::parse(shardplan::testing::slurp(out_path));
  // Rank 1 has batch size 0: it contributes no samples, and the splits protocol
  // exchanges batch sizes inside the splits (2 labels + weights + stride = 4 int64s).
  check_fields(out, json::parse(R"({"outputs":[
 {"rank":0,"keys":["P"],"stride":2,"stride_per_rank":[2,0],"recat":[0,1],"lengths":[[1,1]],"values":["p0","p1"],"weights":[1,2]},
 {"rank":1,"keys":["Q"],"stride":2,"stride_per_rank":[2,0],"recat":[0,1],"lengths":[[0,2]],"values":["q0","q1"],"weights":[3,4]}],
 "collectives":[
 {"phase":1,"name":"splits","dtype":"int64","elements":[[4,4],[4,4]],"bytes":[[32,32],[32,32]],"total_bytes":128,"cross_rank_bytes":64},
 {"phase":2,"name":"lengths","dtype":"int64","elements":[[2,2],[0,0]],"bytes":[[16,16],[0,0]],"total_bytes":32,"cross_rank_bytes":16},
 {"phase":2,"name":"values","dtype":"int32","elements":[[2,2],[0,0]],"bytes":[[8,8],[0,0]],"total_bytes":16,"cross_rank_bytes":8},
 {"phase":2,"name":"weights","dtype":"float16","elements":[[2,2],[0,0]],"bytes":[[4,4],[0,0]],"total_bytes":8,"cross_rank_bytes":4}]})"));
}

TEST_CASE("a2a: the same input gives byte-identical output", "[kjt][a2a]") {
  std::string input = R"({"splits":[2,1,0,1],"stagger":2,)" + kV3Inputs;
  auto first = run_a2a("det1.json", input);
  auto second = run_a2a("det2.json", input);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out == second.out);
}

TEST_CASE("a2a: --help shows both modes with examples; a missing file is exit 2", "[kjt][a2a]") {
  auto help = shardplan::testing::run_shardplan("a2a --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("shardplan a2a --input kjt.json -o received.json") != std::string::npos);
  CHECK(help.out.find("shardplan a2a --plan plan.json --model") != std::string::npos);
  auto missing = shardplan::testing::run_shardplan("a2a --input /nonexistent/kjt.json");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "error: /nonexistent/kjt.json: cannot open the file (missing or not readable)\n");
  auto check_only = run_a2a("check_only.json", R"({"splits":[2,1],)" + kV1Inputs, "--check-only");
  CHECK(check_only.exit_code == 0);
  CHECK(check_only.out.empty());
}
