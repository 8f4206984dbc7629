// schemas/sweep.schema.json and sweep-row.schema.json stay true: the grid's keys
// and enums equal the sweep's field table and the planner's name tables, and the
// example sweep files validate (rows are validated in tests/app/sweep_command_test.cc).
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "config/planner_names.h"
#include "support/json_schema.h"
#include "support/yaml_json.h"
#include "sweep/sweep_grid.h"

namespace shardplan {
namespace {

using nlohmann::json;
using shardplan::testing::yaml_to_json;
using testing::load_schema;
using testing::schema_errors;

TEST_CASE("sweep schema: grid keys and enums equal the field and name tables", "[sweep][schema]") {
  const json schema = load_schema("sweep.schema.json");
  std::set<std::string> keys;
  for (const auto& [key, value] : schema["properties"]["grid"]["properties"].items()) keys.insert(key);
  const auto fields = names_of(kSweepFieldNames);
  CHECK(keys == std::set<std::string>(fields.begin(), fields.end()));
  CHECK(schema["$defs"]["proposer"]["enum"].get<std::vector<std::string>>() == names_of(kProposerNames));
  CHECK(schema["$defs"]["partitioner_type"]["enum"].get<std::vector<std::string>>() == names_of(kPartitionerNames));
  CHECK(schema["$defs"]["reservation_policy"]["enum"].get<std::vector<std::string>>() ==
        names_of(kReservationPolicyNames));
  CHECK(schema["$defs"]["sort_by"]["enum"].get<std::vector<std::string>>() == names_of(kGreedySortByNames));
}

TEST_CASE("sweep schema: the example sweep files validate and load", "[sweep][schema]") {
  const json schema = load_schema("sweep.schema.json");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SHARDPLAN_SOURCE_DIR) + "/configs/sweep")) {
    const std::string path = entry.path().string();
    INFO(path);
    for (const auto& e : schema_errors(schema, yaml_to_json(YAML::LoadFile(path)))) FAIL_CHECK(e);
    CHECK_NOTHROW(read_sweep_grid(path, {}));
    ++files;
  }
  CHECK(files >= 1);
  // The schema refuses what the reader refuses.
  CHECK(schema_errors(schema, json{{"grid", {{"world_size", {8, 16}}}}}).empty());
  CHECK_FALSE(schema_errors(schema, json{{"grid", {{"world_sise", {8}}}}}).empty());
  CHECK_FALSE(schema_errors(schema, json{{"grid", {{"world_size", json::array()}}}}).empty());
  CHECK_FALSE(schema_errors(schema, json{{"grid", {{"proposers", {"greedy+annealing"}}}}}).empty());
  CHECK(schema_errors(schema, json{{"grid", {{"proposers", {"greedy+uniform", json{"grid_search"}}}}}}).empty());
}

}  // namespace
}  // namespace shardplan
