// The spec's error vectors and every check of §6 through the real binary: whole
// stderr lines (file:line:col: key.path: message), exit code 2, no output file.
#include <catch2/catch.hpp>

#include <cstdio>

#include "config/config_test_util.h"
#include "kjt/a2a_test_util.h"

namespace {

using shardplan::testing::run_a2a;
using shardplan::testing::scratch_prefix;

// V1's input, one rank per line, so positions are easy to work out by hand.
const std::string kLine1 = R"({"splits":[2,1],"inputs":[)";
const std::string kRank0 =
    R"( {"rank":0,"keys":["A","B","C"],"lengths":[[1,0,2],[0,1,1],[1,1,0]],"values":["A.V0","A.V1","A.V2","B.V0","B.V1","C.V0","C.V1"]},)";
const std::string kRank1 =
    R"( {"rank":1,"keys":["A","B","C"],"lengths":[[1,1,0],[0,1,2],[1,1,0]],"values":["A.V3","A.V4","B.V2","B.V3","B.V4","C.V2","C.V3"]}]})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string v1(const std::string& line1 = kLine1, const std::string& rank0 = kRank0,
               const std::string& rank1 = kRank1) {
  return line1 + "\n" + rank0 + "\n" + rank1 + "\n";
}

// Runs a2a on `input` with -o; checks exit 2, no output file, and returns stderr
// with the scratch directory stripped from file names.
std::string errors_of(const std::string& input) {
  std::string out_path = scratch_prefix() + "a2a_err_out.json";
  std::remove(out_path.c_str());
  auto r = run_a2a("e.json", input, "-o '" + out_path + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(shardplan::testing::slurp(out_path).empty());
  std::string err = r.err;
  for (auto at = err.find(scratch_prefix()); at != std::string::npos; at = err.find(scratch_prefix()))
    err.erase(at, scratch_prefix().size());
  return err;
}

}  // namespace

// Columns: line 1 is {"splits":[2,1],... so the splits list opens at column 11. In a
// rank line, "lengths": ends at column 42, its list opens at 43 and its second row
// at 52; "values": opens its list at column 78.
TEST_CASE("a2a spec error vectors: whole stderr lines", "[kjt][a2a]") {
  CHECK(errors_of(v1(replaced(kLine1, "[2,1]", "[2,2]"))) ==
        "error: e.json:1:11: splits: sum of splits (4) does not equal the number of keys (3)\n");
  CHECK(errors_of(v1(replaced(kLine1, "[2,1]", "[3]"))) ==
        "error: e.json:1:11: splits: splits has 1 entries but there are 2 ranks\n");
  CHECK(errors_of(v1(kLine1, replaced(kRank0, "[[1,0,2],[0,1,1],[1,1,0]]", "[[1,0,2],[0,1],[1,1,0]]"))) ==
        "error: e.json:2:52: inputs[0].lengths[1]: rank 0: key 'B' has 2 samples but key 'A' has 3; all keys of a "
        "KeyedJaggedTensor must have the same batch size\n");
  CHECK(errors_of(v1(kLine1, kRank0, replaced(kRank1, "[1,1,0]]", "[1,1,1]]"))) ==
        "error: e.json:3:78: inputs[1].values: rank 1: lengths sum to 8 but there are 7 values\n");
  // [0,-1,2] opens at 52, so -1 is at 55.
  CHECK(errors_of(v1(kLine1, replaced(kRank0, "[0,1,1]", "[0,-1,2]"))) ==
        "error: e.json:2:55: inputs[0].lengths[1][1]: rank 0: key 'B' sample 1 has negative length -1\n");
  // {"splits":[2,1], is 16 characters, "stagger": 10 more: the 3 is at column 27.
  CHECK(errors_of(v1(replaced(kLine1, R"("inputs")", R"("stagger":3,"inputs")"))) ==
        "error: e.json:1:27: stagger: stagger must be a positive divisor of the world size 2 (got 3)\n");
}

TEST_CASE("a2a checks 1-7: the remaining messages", "[kjt][a2a]") {
  SECTION("1: ranks not 0..W-1 once each, or no inputs") {
    CHECK(errors_of(v1(kLine1, kRank0, replaced(kRank1, R"("rank":1)", R"("rank":0)"))) ==
          "error: e.json:1:26: inputs: inputs must list ranks 0..1 exactly once\n");
    // W = 0: the spec's {W-1} is -1.
    CHECK(errors_of(R"({"splits":[],"inputs":[]})") ==
          "error: e.json:1:23: inputs: inputs must list ranks 0..-1 exactly once\n");
  }
  SECTION("2: both or neither of splits and feature_layout") {
    CHECK(errors_of(v1(R"({"inputs":[)")) == "error: e.json:1:1: give exactly one of splits or feature_layout\n");
    CHECK(errors_of(v1(R"({"splits":[2,1],"feature_layout":[["A","B"],["C"]],"inputs":[)")) ==
          "error: e.json:1:1: give exactly one of splits or feature_layout\n");
  }
  SECTION("4: a negative split") {
    CHECK(errors_of(v1(replaced(kLine1, "[2,1]", "[4,-1]"))) ==
          "error: e.json:1:14: splits[1]: splits[1] is negative (-1)\n");
  }
  SECTION("5: stagger below 1") {
    CHECK(errors_of(v1(replaced(kLine1, R"("inputs")", R"("stagger":0,"inputs")"))) ==
          "error: e.json:1:27: stagger: stagger must be a positive divisor of the world size 2 (got 0)\n");
  }
  SECTION("6: unknown dtypes and dtypes of the wrong kind") {
    // {"splits":[2,1], is 16 characters, "dtypes":{ 10 and "values": 9 more: 'int16' is
    // at column 36; "int16","weights": is 18 more, so 'int64' is at 54.
    CHECK(errors_of(v1(replaced(kLine1, R"("inputs")", R"("dtypes":{"values":"int16","weights":"int64"},"inputs")"))) ==
          "error: e.json:1:36: dtypes.values: unknown dtype 'int16'\n"
          "error: e.json:1:54: dtypes.weights: 'int64' is not allowed here (expected "
          "[\"float16\",\"bfloat16\",\"float32\",\"float64\"])\n");
    CHECK(errors_of(v1(replaced(kLine1, R"("inputs")", R"("dtypes":{"lengths":"float32"},"inputs")"))) ==
          "error: e.json:1:37: dtypes.lengths: 'float32' is not allowed here (expected [\"int32\",\"int64\"])\n");
  }
  SECTION("7a: keys differ from rank 0, or from feature_layout") {
    CHECK(errors_of(v1(kLine1, kRank0, replaced(kRank1, R"(["A","B","C"])", R"(["A","C","B"])"))) ==
          "error: e.json:3:19: inputs[1].keys: rank 1: keys [\"A\",\"C\",\"B\"] differ from rank 0 keys "
          "[\"A\",\"B\",\"C\"]\n");
    CHECK(errors_of(v1(R"({"feature_layout":[["A","C"],["B"]],"inputs":[)")) ==
          "error: e.json:2:19: inputs[0].keys: rank 0: keys [\"A\",\"B\",\"C\"] do not match feature_layout order "
          "[\"A\",\"C\",\"B\"]\n"
          "error: e.json:3:19: inputs[1].keys: rank 1: keys [\"A\",\"B\",\"C\"] do not match feature_layout order "
          "[\"A\",\"C\",\"B\"]\n");
  }
  SECTION("7b: a lengths row per key") {
    CHECK(errors_of(v1(kLine1, replaced(kRank0, ",[1,1,0]]", "]"))) ==
          "error: e.json:2:43: inputs[0].lengths: rank 0: lengths has 2 rows but there are 3 keys\n");
  }
  SECTION("7f, 7g: weights on every rank or none, one per value") {
    std::string weighted0 = replaced(kRank0, "]},", R"(],"weights":[1,2,3,4,5,6]},)");
    // Rank order: rank 0's count first. Its values list spans columns 78-127, so
    // ,"weights": puts the weights list at 139; rank 1 (no weights) is named at its entry.
    CHECK(errors_of(v1(kLine1, weighted0)) ==
          "error: e.json:2:139: inputs[0].weights: rank 0: weights has 6 entries but values has 7\n"
          "error: e.json:3:2: inputs[1]: rank 1: weights must be given on every rank or on none\n");
  }
}

TEST_CASE("a2a: several problems are reported in the spec's order", "[kjt][a2a]") {
  // Rule 3 (splits), 5 (stagger), 7b on rank 0 and 7e on rank 1; rule 8 is skipped
  // because splits already failed.
  std::string line1 = R"({"splits":[3],"stagger":5,"inputs":[)";
  std::string rank0 = replaced(kRank0, ",[1,1,0]]", "]");
  std::string rank1 = replaced(kRank1, "[1,1,0]]", "[1,1,1]]");
  CHECK(errors_of(v1(line1, rank1.substr(0, rank1.size() - 2) + ",", rank0.substr(0, rank0.size() - 1) + "]}")) ==
        "error: e.json:1:11: splits: splits has 1 entries but there are 2 ranks\n"
        "error: e.json:1:25: stagger: stagger must be a positive divisor of the world size 2 (got 5)\n"
        "error: e.json:3:43: inputs[1].lengths: rank 0: lengths has 2 rows but there are 3 keys\n"
        "error: e.json:2:78: inputs[0].values: rank 1: lengths sum to 8 but there are 7 values\n");
}

TEST_CASE("a2a: structural problems name the field and the closest key", "[kjt][a2a]") {
  CHECK(errors_of(v1(replaced(kLine1, R"("inputs")", R"("stager":2,"inputs")"))) ==
        "error: e.json:1:17: stager: unknown key 'stager', did you mean 'stagger'?\n");
  CHECK(errors_of(v1(kLine1, replaced(kRank0, R"("A.V0")", "true"))) ==
        "error: e.json:2:79: inputs[0].values[0]: expected a number or a string, found 'true'\n");
  CHECK(errors_of(v1(replaced(kLine1, R"("inputs")", R"("protocol":"splits_then_tensor","inputs")"))) ==
        "error: e.json:1:28: protocol: unknown protocol 'splits_then_tensor', did you mean 'splits_then_tensors'?\n");
}

// More ranks than the documented limit: one positioned error before any check or
// simulation sized by the rank count (the result grows as ranks x ranks). Both the
// JSON reader and the YAML one, at the `inputs` list.
TEST_CASE("a2a: more than 2048 ranks are refused at the inputs list", "[kjt][a2a]") {
  auto input_of = [](int ranks, bool yaml) {
    std::string text = yaml ? "splits: [1" : R"({"splits":[1)";
    for (int r = 1; r < ranks; ++r) text += ",0";
    text += yaml ? "]\ninputs:\n" : R"(],"inputs":[)";
    for (int r = 0; r < ranks; ++r) {
      const std::string rank = std::to_string(r);
      if (yaml)
        text += "  - {rank: " + rank + ", keys: [A], lengths: [[1]], values: [v" + rank + "]}\n";
      else
        text += std::string(r ? "," : "") + R"({"rank":)" + rank + R"(,"keys":["A"],"lengths":[[1]],"values":["v)" +
                rank + R"("]})";
    }
    return text + (yaml ? "" : "]}");
  };
  const std::string json_err = errors_of(input_of(2049, false));
  // {"splits":[1 then 2048 times ",0", then ],"inputs": — the list opens after that.
  const std::size_t column =
      std::string(R"({"splits":[1)").size() + 2 * 2048 + std::string(R"(],"inputs":)").size() + 1;
  CHECK(json_err == "error: e.json:1:" + std::to_string(column) +
                        ": inputs: too large: 2049 ranks; shardplan's limit is 2048 (every rank receives from every "
                        "rank)\n");
  auto yaml = run_a2a("e.yaml", input_of(2049, true), "-o /dev/null");
  CHECK(yaml.exit_code == 2);
  // The list starts on line 3, at its first item's dash.
  CHECK(yaml.err.find("e.yaml:3:3: inputs: too large: 2049 ranks; shardplan's limit is 2048") != std::string::npos);
  // 2048 ranks are simulated.
  auto ok = run_a2a("e2048.json", input_of(2048, false), "-o /dev/null");
  CHECK(ok.exit_code == 0);
}

// Found by a2a_input_fuzz: a file without `inputs` had its problem located in
// inputs[0], which does not exist, and the run ended in an internal error (exit 3).
// Check 1 of the spec covers a missing list: W = 0.
TEST_CASE("a2a: a file without inputs is check 1's error at the root, in JSON and YAML", "[kjt][a2a]") {
  CHECK(errors_of(R"({"splits": [1]})") == "error: e.json:1:1: inputs: inputs must list ranks 0..-1 exactly once\n");
  CHECK(errors_of(R"({"feature_layout": [["a"], ["b"]], "stagger": 1})") ==
        "error: e.json:1:1: inputs: inputs must list ranks 0..-1 exactly once\n");
  auto yaml = run_a2a("e.yaml", "splits: [1]\n", "-o /dev/null");
  CHECK(yaml.exit_code == 2);
  CHECK(yaml.err == "error: " + scratch_prefix() + "e.yaml:1:1: inputs: inputs must list ranks 0..-1 exactly once\n");
}
