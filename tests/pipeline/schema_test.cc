// schemas/pipeline.schema.json stays true: the example in configs/pipeline/ and the
// spec's P1 input validate, and what the reader rejects for its shape the schema rejects.
#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include "support/json_schema.h"
#include "support/run_binary.h"
#include "support/yaml_json.h"

namespace shardplan::testing {
namespace {

using nlohmann::json;

TEST_CASE("pipeline schema: the example and P1 validate; bad shapes do not", "[pipeline][schema]") {
  json schema = load_schema("pipeline.schema.json");
  json example = yaml_to_json(YAML::LoadFile(std::string(SHARDPLAN_SOURCE_DIR) + "/configs/pipeline/transformer.yaml"));
  auto errors = schema_errors(schema, example);
  for (const auto& e : errors) FAIL_CHECK(e);
  CHECK(errors.empty());
  json p1 = json::parse(R"({"layers":[{"name":"l0","param_bytes":1000,"activation_bytes_per_sample":100,
    "fwd_ms_per_sample":1,"bwd_ms_per_sample":2}],"input_bytes_per_sample":50,"batch_size":8,
    "devices":{"count":2,"memory_bytes":1000000},"options":{"chunks":4,"checkpoint":null}})");
  CHECK(schema_errors(schema, p1).empty());
  // Each of these the reader rejects too.
  json unknown = p1;
  unknown["options"]["chunk"] = 4;
  CHECK(schema_errors(schema, unknown).size() == 1);
  json bad_schedule = p1;
  bad_schedule["options"]["schedule"] = "zero_bubble";
  CHECK(!schema_errors(schema, bad_schedule).empty());
  json no_name = p1;
  no_name["layers"][0].erase("name");
  CHECK(!schema_errors(schema, no_name).empty());
  json no_devices = p1;
  no_devices.erase("devices");
  CHECK(schema_errors(schema, no_devices).size() == 1);
}

}  // namespace
}  // namespace shardplan::testing
