// Issue 15, classes 3 and 4: inputs that gave "internal error", were refused
// though valid, or were silently dropped (the real binary, whole lines).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "config/bad_input_support.h"
#include "config/config_test_util.h"

using shardplan::testing::run_in_scratch;
using shardplan::testing::small_model;
using shardplan::testing::small_topology;
using shardplan::testing::write_scratch;
using Lines = std::vector<std::string>;

TEST_CASE("custom capacities summing to 0 with a row-wise table are a planning outcome naming the table",
          "[bad-input]") {
  write_scratch("zero-caps.yaml", "world_size: 2\ncustom:\n  hbm_cap: [0, 0]\n  ddr_cap: [0, 0]\n");
  write_scratch("row-wise.yaml",
                "modules:\n  - path: m\n    tables:\n      - {name: t, num_embeddings: 1000, embedding_dim: 8}\n"
                "constraints:\n  t:\n    sharding_types: [row_wise]\n");
  auto run = run_in_scratch(
      "plan --model row-wise.yaml --topology zero-caps.yaml --stats none "
      "--storage-reservation fixed_percentage");
  CHECK(run.exit_code == 1);
  CHECK(run.errors ==
        Lines{"error: no sharding option: Failed to calculate sharding plan: cannot split rows in proportion "
              "to the ranks' memory: the topology's custom capacities (custom.hbm_cap or custom.ddr_cap) "
              "sum to 0 (torchrec: division by zero) Context: table_name='t', "
              "module_path='m', sharding_type='row_wise'"});
  auto enumerate = run_in_scratch("enumerate --model row-wise.yaml --topology zero-caps.yaml");
  CHECK(enumerate.exit_code == 1);
  CHECK(enumerate.errors == run.errors);
}

TEST_CASE("invalid UTF-8 in a name is refused at its position", "[bad-input]") {
  write_scratch("utf8.yaml",
                "modules:\n  - path: m\n    tables:\n"
                "      - {name: \"t\xff\xfe\", num_embeddings: 1000, embedding_dim: 8}\n");
  auto run = run_in_scratch("plan --model utf8.yaml --topology " + small_topology() + " --stats none");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: utf8.yaml:4:16: modules[0].tables[0].name: expected UTF-8 text, found the byte "
                            "0xFF at byte 2 of the string"});
  // A surrogate encoded in UTF-8 (ED A0 80) is not UTF-8 either; real non-ASCII names are fine.
  write_scratch("surrogate.yaml",
                "modules:\n  - path: \"m\xed\xa0\x80\"\n    tables:\n"
                "      - {name: t\xc3\xa9, num_embeddings: 1000, embedding_dim: 8}\n");
  run = run_in_scratch("validate surrogate.yaml");
  CHECK(run.errors == Lines{"error: surrogate.yaml:2:11: modules[0].path: expected UTF-8 text, found the byte 0xED at "
                            "byte 2 of the string"});
}

TEST_CASE("a single-quoted string with '' and brackets is read as a string", "[bad-input]") {
  write_scratch("quoted.yaml", "name: 'it''s " + std::string(70, '[') + "'\n" +
                                   "modules:\n  - path: m\n    tables:\n"
                                   "      - {name: t, num_embeddings: 1000, embedding_dim: 8}\n");
  auto run = run_in_scratch("validate quoted.yaml");
  CHECK(run.exit_code == 0);
  CHECK(run.errors.empty());
}

TEST_CASE("a second YAML document is refused at its start", "[bad-input]") {
  write_scratch("two-docs.yaml", "world_size: 2\n---\nworld_size: 4\n");
  auto run = run_in_scratch("plan --model " + small_model() + " --topology two-docs.yaml --stats none");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: two-docs.yaml:2:1: a second YAML document; an input file holds exactly one "
                            "(remove the '---' line and what follows, or split the file)"});
  // A leading '---' and a final '...' mark one document: accepted.
  write_scratch("one-doc.yaml", "---\nworld_size: 2\n...\n");
  CHECK(run_in_scratch("validate one-doc.yaml").exit_code == 0);
}
