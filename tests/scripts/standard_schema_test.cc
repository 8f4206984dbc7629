// The schemas work with a standard validator, not only with the test suite's own
// subset (support/json_schema.h): Debian's python3-jsonschema, through
// scripts/check_schemas.py, validates real plan and enumerate output and the example
// case. Where no Python with jsonschema is found the test says so loudly and CTest
// lists it as Skipped.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

// The Pythons that import jsonschema: Debian's own (4.10 resolves $ref through a
// relative $id and failed on ours) and python3 on PATH when it is another one.
std::vector<std::string> pythons_with_jsonschema() {
  std::vector<std::string> found;
  for (const std::string python : {"/usr/bin/python3", "python3"}) {
    std::string command = python + " -c 'import jsonschema' >/dev/null 2>&1";
    if (std::system(command.c_str()) == 0) found.push_back(python);
  }
  return found;
}

RunResult check_schemas(const std::string& python, const std::string& pairs) {
  const std::string out = scratch_prefix() + "check_schemas.out";
  const std::string command = python + " " + kSourceDir + "/scripts/check_schemas.py " + pairs + " >" + out + " 2>&1";
  const int status = std::system(command.c_str());
  return RunResult{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), ""};
}

TEST_CASE("schemas: python3-jsonschema validates plan, enumerate, explain and case files with them", "[app][schema]") {
  const auto pythons = pythons_with_jsonschema();
  if (pythons.empty()) {
    WARN(
        "\n*** no python3 with the jsonschema module (apt-get install python3-jsonschema): "
        "STANDARD SCHEMA VALIDATION SKIPPED ***\n");
    note_parity_skipped();
    return;
  }
  const std::string plan = scratch_prefix() + "std_schema_plan.json";
  const std::string options = scratch_prefix() + "std_schema_options.json";
  const std::string example = kSourceDir + "/configs/quickstart.json";
  REQUIRE(run_shardplan("plan --config " + example + " --stats none -o " + plan).exit_code == 0);
  REQUIRE(run_shardplan("enumerate --config " + example + " -o " + options).exit_code == 0);
  const std::string explained = scratch_prefix() + "std_schema_explain.json";
  REQUIRE(run_shardplan("explain --config " + example + " --table sparse.ebc.t_query --format json -o " + explained)
              .exit_code == 0);
  const std::string schemas = kSourceDir + "/schemas/";
  for (const auto& python : pythons) {
    INFO("validated by " << python);
    RunResult valid = check_schemas(
        python, schemas + "plan.schema.json=" + plan + " " + schemas + "enumerate.schema.json=" + options + " " +
                    schemas + "case.schema.json=" + example + " " + schemas + "explain.schema.json=" + explained);
    CHECK(valid.out == plan + ": ok\n" + options + ": ok\n" + example + ": ok\n" + explained + ": ok\n");
    CHECK(valid.exit_code == 0);

    // The validator does look: a plan without its summary is refused.
    nlohmann::json broken = nlohmann::json::parse(slurp(plan));
    broken.erase("summary");
    const std::string broken_path = write_scratch("std_schema_broken.json", broken.dump());
    RunResult invalid = check_schemas(python, schemas + "plan.schema.json=" + broken_path);
    CHECK(invalid.out == broken_path + ": : 'summary' is a required property\n");
    CHECK(invalid.exit_code == 1);
  }
}

}  // namespace
}  // namespace shardplan::testing
