// Float `values` (float32 / float16 / bfloat16) are moved like integer ones, with
// byte counts from their element size; lengths summing past 2^63 are a positioned
// "too large" error instead of wrapping round to the value count.
#include <catch2/catch.hpp>

#include "kjt/a2a_test_util.h"

namespace {

using nlohmann::json;
using shardplan::testing::run_a2a;

// The seed's two-rank example (keys A,B,C; rank 0 owns A,B, rank 1 owns C) with numbers.
std::string a2a_float_input(const std::string& dtype) {
  return R"({"splits":[2,1],"dtypes":{"values":")" + dtype + R"("},"inputs":[
 {"rank":0,"keys":["A","B","C"],"lengths":[[1,0,2],[0,1,1],[1,1,0]],"values":[0.5,1.5,2.5,3.5,4.5,5.5,6.5]},
 {"rank":1,"keys":["A","B","C"],"lengths":[[1,1,0],[0,1,2],[1,1,0]],"values":[10.25,11.25,12.25,13.25,14.25,15.25,16.25]}]})";
}

TEST_CASE("a2a: float values are moved like any tensor, bytes from the element size", "[kjt][a2a][float]") {
  // Values per (source, destination): rank 0 sends A (3) + B (2) = 5 to rank 0 and C (2)
  // to rank 1; rank 1 sends A (2) + B (3) = 5 and C (2). Destination 0 receives, key by
  // key and source by source: A from 0 (0.5 1.5 2.5), A from 1 (10.25 11.25), B from 0
  // (3.5 4.5), B from 1 (12.25 13.25 14.25).
  for (auto [dtype, size] : {std::pair{"float32", 4}, std::pair{"float16", 2}, std::pair{"bfloat16", 2}}) {
    INFO(dtype);
    auto r = run_a2a("float.json", a2a_float_input(dtype));
    REQUIRE(r.exit_code == 0);
    json out = json::parse(r.out);
    CHECK(out["outputs"][0]["values"] == json::parse("[0.5,1.5,2.5,10.25,11.25,3.5,4.5,12.25,13.25,14.25]"));
    CHECK(out["outputs"][1]["values"] == json::parse("[5.5,6.5,15.25,16.25]"));
    const json& values = out["collectives"][1];
    CHECK(values["name"] == "values");
    CHECK(values["dtype"] == dtype);
    CHECK(values["elements"] == json::parse("[[5,2],[5,2]]"));
    CHECK(values["bytes"] == json::array({json::array({5 * size, 2 * size}), json::array({5 * size, 2 * size})}));
    CHECK(values["total_bytes"] == 14 * size);
    // Off the diagonal: rank 0 sends 2 (C) to rank 1, rank 1 sends 5 (A, B) to rank 0.
    CHECK(values["cross_rank_bytes"] == 7 * size);
  }
}

TEST_CASE("a2a: a number with a fraction needs a float values dtype", "[kjt][a2a][float]") {
  auto r = run_a2a("float-int.json", a2a_float_input("int64"));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("inputs[0].values: rank 0: value 0 (0.5) is not a 64-bit integer but values are int64") !=
        std::string::npos);
  // So does an integer beyond int64 (it would not fit the tensor torchrec is given).
  std::string huge = a2a_float_input("int64");
  huge.replace(huge.find("0.5"), 3, "99999999999999999999");
  const std::string dtypes = R"("dtypes":{"values":"int64"},)";  // the default, left out
  huge.replace(huge.find(dtypes), dtypes.size(), "");
  auto big = run_a2a("huge-int.json", huge);
  CHECK(big.exit_code == 2);
  CHECK(big.err.find("value 0 (99999999999999999999) is not a 64-bit integer but values are int64") !=
        std::string::npos);
}

TEST_CASE("a2a: lengths summing past 2^63 are too large, not wrapped", "[kjt][a2a][hostile]") {
  // 2^62 + 2^62 wraps to -2^63; with 2^63 - 7 more... the wrapped sum could equal the
  // 7 values given. The checked sum stops at the second entry.
  const std::string input = R"({"splits":[2,1],"inputs":[
 {"rank":0,"keys":["A","B","C"],"lengths":[[4611686018427387904,4611686018427387904,0],[0,1,1],[1,1,0]],"values":[1,2,3,4,5,6,7]},
 {"rank":1,"keys":["A","B","C"],"lengths":[[1,1,0],[0,1,2],[1,1,0]],"values":[1,2,3,4,5,6,7]}]})";
  auto r = run_a2a("huge-lengths.json", input);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find("inputs[0].lengths[0][1]: rank 0: too large: the lengths up to key 'A' sample 1 sum past 2^63 - 1 "
                   "values") != std::string::npos);
}

}  // namespace
