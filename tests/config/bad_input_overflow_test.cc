// Issue 15, class 2 and non-finite numbers: sizes past 64 bits never wrap into a
// plan (torchrec's INSUFFICIENT_STORAGE instead), and NaN / infinity are refused
// wherever a number is read, flags included (the real binary).
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "config/bad_input_support.h"
#include "config/config_test_util.h"

using shardplan::testing::run_in_scratch;
using shardplan::testing::scratch_prefix;
using shardplan::testing::small_model;
using shardplan::testing::small_topology;
using shardplan::testing::write_scratch;
using Lines = std::vector<std::string>;

TEST_CASE("input and output sizes past 2^63 bytes are a storage failure, not a plan", "[bad-input]") {
  // Every factor is within its limit; their product (2^20 x 2^20 x 2^20 x 2 ranks
  // x 2^16 columns x 4 bytes) is not a 64-bit number.
  write_scratch("io.yaml",
                "batch_size: 1048576\nmodules:\n  - path: m\n    kind: embedding\n    tables:\n"
                "      - {name: t, num_embeddings: 1000, embedding_dim: 65536}\n"
                "constraints:\n  t:\n    pooling_factors: [1048576]\n    num_poolings: [1048576]\n");
  std::filesystem::remove(scratch_prefix() + "io-plan.json");
  auto run = run_in_scratch("plan --model io.yaml --topology " + small_topology() +
                            " --storage-reservation fixed_percentage --stats none -o io-plan.json");
  CHECK(run.exit_code == 1);
  REQUIRE(run.errors.size() >= 2);
  CHECK(run.errors[0] == "error: no feasible plan (INSUFFICIENT_STORAGE, after 10 proposals)");
  CHECK(run.errors[1].rfind("  m.t needs ", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(scratch_prefix() + "io-plan.json"));
}

TEST_CASE("non-finite numbers are refused in flags", "[bad-input]") {
  for (const std::string value : {"nan", "inf", "-nan"}) {
    auto run = run_in_scratch("plan --model " + small_model() + " --topology " + small_topology() +
                              " --stats none --reservation-percentage " + value);
    CHECK(run.exit_code == 2);
    // A ratio flag (15% or 0.15): refused before planning, as every ratio is.
    CHECK(run.errors ==
          Lines{"error: --reservation-percentage: expected a finite ratio such as 5% or 0.05, found '" + value + "'",
                "Run 'shardplan --help' (or 'shardplan COMMAND --help') for usage."});
  }
}

TEST_CASE("non-finite numbers are refused in files", "[bad-input]") {
  write_scratch("nan-planner.yaml",
                "storage_reservation:\n  policy: fixed_percentage\n  percentage: .nan\n"
                "  parameter_multiplier: nan\npartitioner:\n  tolerance: .inf\n");
  auto run = run_in_scratch("validate nan-planner.yaml");
  CHECK(run.exit_code == 2);
  CHECK(run.errors ==
        Lines{"error: nan-planner.yaml:3:15: storage_reservation.percentage: expected a number, found '.nan'",
              "error: nan-planner.yaml:4:25: storage_reservation.parameter_multiplier: expected a "
              "non-negative number, found 'nan'",
              "error: nan-planner.yaml:6:14: partitioner.tolerance: expected a non-negative number, found "
              "'.inf'"});
}

TEST_CASE("the dense reservation's multiplier is bounded", "[bad-input]") {
  write_scratch("multiplier.yaml", "storage_reservation:\n  parameter_multiplier: 1e300\n");
  auto run = run_in_scratch("validate multiplier.yaml");
  CHECK(run.exit_code == 2);
  CHECK(run.errors == Lines{"error: multiplier.yaml:2:25: storage_reservation.parameter_multiplier: expected at most "
                            "1000 (shardplan's limit), found 1e300"});
}
