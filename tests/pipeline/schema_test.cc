// schemas/pipeline.schema.json stays true: the example in configs/pipeline/ and the
// spec's P1 input validate, and what the reader rejects for its shape the schema rejects.
#include <catch2/catch.hpp>
#include <yaml-cpp/yaml.h>

#include "support/json_schema.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

using nlohmann::json;

// A YAML tree as JSON: quoted scalars stay strings, plain ones become numbers or booleans.
json yaml_to_json(const YAML::Node& node) {
  if (node.IsMap()) {
    json out = json::object();
    for (auto it = node.begin(); it != node.end(); ++it) out[it->first.Scalar()] = yaml_to_json(it->second);
    return out;
  }
  if (node.IsSequence()) {
    json out = json::array();
    for (const auto& e : node) out.push_back(yaml_to_json(e));
    return out;
  }
  if (node.IsNull()) return nullptr;
  const std::string& s = node.Scalar();
  if (node.Tag() == "!") return s;
  if (s == "true" || s == "false") return s == "true";
  try {
    std::size_t used = 0;
    long long i = std::stoll(s, &used);
    if (used == s.size()) return i;
    double d = std::stod(s, &used);
    if (used == s.size()) return d;
  } catch (const std::exception&) {
  }
  return s;
}

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
