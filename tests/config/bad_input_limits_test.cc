// Issue 15, class 1: a small file cannot make shardplan work or allocate without
// bound. Each input is refused with a position and exit 2 (the real binary).
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "config/bad_input_support.h"
#include "config/config_test_util.h"

using shardplan::testing::run_in_scratch;
using shardplan::testing::small_model;
using shardplan::testing::small_topology;
using shardplan::testing::write_scratch;
using Lines = std::vector<std::string>;

namespace {

// A YAML alias chain: level k holds ten aliases to level k-1, so the last level
// stands for 10^levels scalars in a file of a few hundred bytes.
std::string alias_bomb(int levels) {
  std::string text =
      "modules:\n  - path: m\n    tables:\n      - name: t\n        num_embeddings: 10\n"
      "        embedding_dim: 8\n        feature_names: [a]\nlist0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int k = 1; k <= levels; ++k) {
    std::string prev = "*l" + std::to_string(k - 1);
    text += "list" + std::to_string(k) + ": &l" + std::to_string(k) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", " : "") + prev;
    text += "]\n";
  }
  return text;
}

std::string one_table(const std::string& fields) {
  return "modules:\n  - path: m\n    tables:\n      - name: t\n" + fields;
}

}  // namespace

TEST_CASE("an alias bomb is refused at the alias that passes the node limit", "[bad-input]") {
  write_scratch("bomb.yaml", alias_bomb(8));
  auto run = run_in_scratch("validate bomb.yaml");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: bomb.yaml:14:23: the file holds more than 4000000 YAML nodes once its "
                            "aliases are expanded (shardplan's limit)"});
  auto plan = run_in_scratch("plan --model bomb.yaml --topology " + small_topology() + " -o out.json");
  CHECK(plan.exit_code == 2);
  CHECK(plan.errors == run.errors);
  CHECK_FALSE(std::filesystem::exists(shardplan::testing::scratch_prefix() + "out.json"));
}

TEST_CASE("aliases below the node limit are read as usual", "[bad-input]") {
  // A shared feature list written once and used by two tables: a real use of anchors.
  write_scratch("anchors.yaml",
                "modules:\n  - path: m\n    tables:\n"
                "      - {name: t, num_embeddings: 10, embedding_dim: 8, feature_names: &f [a, b]}\n"
                "      - {name: u, num_embeddings: 10, embedding_dim: 8, feature_names: *f}\n");
  auto run = run_in_scratch("validate anchors.yaml");
  CHECK(run.exit_code == 0);
}

TEST_CASE("an alias inside the node it names is refused", "[bad-input]") {
  write_scratch("cycle.yaml", "world_size: 2\ncustom: &c {hbm_cap: [*c]}\n");
  auto run = run_in_scratch("validate cycle.yaml");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: cycle.yaml:2:23: an alias inside the node it names (a cycle)"});
}

TEST_CASE("an aliased duplicate table is reported, and the list is capped", "[bad-input]") {
  // 1000 modules share one list of 100 aliases to one table: 99 999 duplicates.
  std::string text = "modules:\n  - path: m0\n    tables: &tl [&tb {name: t, num_embeddings: 10, embedding_dim: 8}";
  for (int i = 0; i < 99; ++i) text += ", *tb";
  text += "]\n";
  for (int i = 1; i < 1000; ++i) text += "  - {path: m" + std::to_string(i) + ", tables: *tl}\n";
  write_scratch("dups.yaml", text);
  auto run = run_in_scratch("validate dups.yaml");
  CHECK(run.exit_code == 2);
  REQUIRE(run.errors.size() == 51);
  CHECK(run.errors[0] ==
        "error: dups.yaml:3:18: modules[0].tables[1].name: duplicate table name 't' (first at line 3)");
  CHECK(run.errors[50] == "error: ... and 99949 more");
}

TEST_CASE("embedding_dim, num_embeddings and their product are bounded", "[bad-input]") {
  write_scratch("dim53.yaml", one_table("        num_embeddings: 10\n        embedding_dim: 9007199254740990\n"));
  auto run = run_in_scratch("plan --model dim53.yaml --topology " + small_topology() + " --stats none");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: dim53.yaml:6:24: modules[0].tables[0].embedding_dim: expected at most 65536 "
                            "(shardplan's limit), found 9007199254740990"});
  write_scratch("dim31.yaml", one_table("        num_embeddings: 10\n        embedding_dim: 2147483648\n"));
  run = run_in_scratch("plan --model dim31.yaml --topology " + small_topology() + " --stats none");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: dim31.yaml:6:24: modules[0].tables[0].embedding_dim: expected at most 65536 "
                            "(shardplan's limit), found 2147483648"});
  write_scratch("rows.yaml", one_table("        num_embeddings: 1000000000000000000\n        embedding_dim: 64\n"));
  run = run_in_scratch("validate rows.yaml");
  CHECK(run.errors == Lines{"error: rows.yaml:5:25: modules[0].tables[0].num_embeddings: expected at most "
                            "1099511627776 (shardplan's limit), found 1000000000000000000"});
  write_scratch("product.yaml", one_table("        num_embeddings: 1099511627776\n        embedding_dim: 65536\n"));
  run = run_in_scratch("validate product.yaml");
  CHECK(run.errors == Lines{"error: product.yaml:4:9: modules[0].tables[0]: num_embeddings x embedding_dim = "
                            "72057594037927936 elements, expected at most 281474976710656 (shardplan's limit)"});
}

TEST_CASE("world_size is bounded in the file and on the command line", "[bad-input]") {
  for (const std::string size : {"10000000", "2147483648", "4294967296"}) {
    write_scratch("ws.yaml", "world_size: " + size + "\n");
    auto run = run_in_scratch("plan --model " + small_model() + " --topology ws.yaml --stats none");
    CHECK(run.exit_code == 2);
    CHECK(run.errors ==
          Lines{"error: ws.yaml:1:13: world_size: expected at most 65536 (shardplan's limit), found " + size});
  }
  auto run = run_in_scratch("plan --model " + small_model() + " --topology " + small_topology() +
                            " --world-size 10000000 --stats none");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: --world-size: expected at most 65536 (shardplan's limit), found 10000000"});
  run = run_in_scratch("plan --model " + small_model() + " --topology " + small_topology() +
                       " --batch-size 9007199254740993 --stats none");
  CHECK(run.exit_code == 2);
  CHECK(run.errors ==
        Lines{"error: --batch-size: expected at most 1048576 (shardplan's limit), found 9007199254740993"});
}

TEST_CASE("pooling factors and batch sizes past 2^53 are refused with positions", "[bad-input]") {
  write_scratch("pooling.yaml",
                one_table("        num_embeddings: 10\n        embedding_dim: 8\n") +
                    "batch_size: 9007199254740992\nconstraints:\n  t:\n    pooling_factors: [1.0e16]\n");
  auto run = run_in_scratch("validate pooling.yaml");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: pooling.yaml:7:13: batch_size: expected at most 1048576 (shardplan's limit), found "
                            "9007199254740992",
                            "error: pooling.yaml:10:23: constraints.t.pooling_factors[0]: expected at most 1048576 "
                            "(shardplan's limit), found 1.0e16"});
}

TEST_CASE("a file past the size limit is refused before it is read", "[bad-input]") {
  std::string path = write_scratch("huge.json", "");
  std::filesystem::resize_file(path, (std::uintmax_t{64} << 20) + 1);  // sparse: no 64 MiB written
  auto run = run_in_scratch("validate huge.json");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: huge.json: the file has 67108865 bytes; expected at most 67108864 (shardplan's "
                            "limit)"});
}

TEST_CASE("a JSON file past the value limit is refused at the value", "[bad-input]") {
  std::string text = "{\"world_size\": 2, \"custom\": {\"hbm_cap\": [0";
  for (int i = 0; i < 4'000'000; ++i) text += ",0";
  text += "]}}";
  write_scratch("values.json", text);
  auto run = run_in_scratch("validate values.json");
  CHECK(run.exit_code == 2);
  CHECK(run.errors ==
        Lines{"error: values.json:1:8000027: the file holds more than 4000000 JSON values (shardplan's limit)"});
}
