// schemas/a2a-{input,output}.schema.json stay true: their keys and enums equal the
// reader's key lists and the name tables, and real inputs and outputs validate.
#include <catch2/catch.hpp>

#include <set>

#include "kjt/all_to_all.h"
#include "kjt/input_reader.h"
#include "kjt/output_json.h"
#include "kjt/plan_traffic.h"
#include "kjt/plan_traffic_json.h"
#include "support/json_schema.h"

namespace {

using nlohmann::json;
using shardplan::testing::load_schema;
using shardplan::testing::schema_errors;

std::set<std::string> keys_of(const json& object_schema) {
  std::set<std::string> out;
  for (const auto& [key, value] : object_schema["properties"].items()) out.insert(key);
  return out;
}

std::set<std::string> name_set(const std::vector<std::string>& names) { return {names.begin(), names.end()}; }

// Inputs covering every optional part: weights, dtypes, stagger, feature_layout, both protocols.
const char* const kInputs[] = {
    R"({"splits":[2,1],"inputs":[
      {"rank":0,"keys":["A","B","C"],"lengths":[[1,0,2],[0,1,1],[1,1,0]],"values":["A.V0","A.V1","A.V2","B.V0","B.V1","C.V0","C.V1"]},
      {"rank":1,"keys":["A","B","C"],"lengths":[[1,1,0],[0,1,2],[1,1,0]],"values":["A.V3","A.V4","B.V2","B.V3","B.V4","C.V2","C.V3"]}]})",
    R"({"feature_layout":[["X"],["Y","Z"]],"protocol":"splits_then_tensors","dtypes":{"weights":"float16"},"inputs":[
      {"rank":0,"keys":["X","Y","Z"],"lengths":[[1,2],[0,1],[2,0]],"values":[1,2,3,4,5,6],"weights":[0.5,1.0,1.5,2.0,2.5,3.0]},
      {"rank":1,"keys":["X","Y","Z"],"lengths":[[0],[1],[0]],"values":[7],"weights":[4.0]}]})",
    R"({"splits":[1,0],"stagger":2,"inputs":[{"rank":1,"keys":["P"],"lengths":[[]],"values":[],"weights":null},
      {"rank":0,"keys":["P"],"lengths":[[2]],"values":["p","q"]}]})",
};

}  // namespace

TEST_CASE("a2a schemas: keys and enums equal the reader's lists and the name tables", "[kjt][a2a]") {
  json input = load_schema("a2a-input.schema.json");
  CHECK(keys_of(input) == name_set(shardplan::kjt::a2a_input_keys("")));
  CHECK(keys_of(input["properties"]["dtypes"]) == name_set(shardplan::kjt::a2a_input_keys("dtypes")));
  CHECK(keys_of(input["$defs"]["input"]) == name_set(shardplan::kjt::a2a_input_keys("input")));
  CHECK(input["$defs"]["dtype"]["enum"].get<std::vector<std::string>>() == names_of(shardplan::kjt::kDtypeNames));
  CHECK(input["$defs"]["protocol"]["enum"].get<std::vector<std::string>>() == names_of(shardplan::kjt::kProtocolNames));
  json output = load_schema("a2a-output.schema.json");
  CHECK(output["$defs"]["plan"]["properties"]["groups"]["items"]["properties"]["sharding_type"]["enum"]
            .get<std::vector<std::string>>() == names_of(shardplan::kShardingTypeNames));
}

TEST_CASE("a2a schemas: inputs and the outputs of both modes validate", "[kjt][a2a]") {
  json input_schema = load_schema("a2a-input.schema.json");
  json output_schema = load_schema("a2a-output.schema.json");
  for (const char* text : kInputs) {
    INFO(text);
    CHECK(schema_errors(input_schema, json::parse(text)).empty());
    auto input = shardplan::kjt::parse_a2a_input("schema.json", text);
    std::string out;
    shardplan::kjt::append_output_json(input, shardplan::kjt::simulate(input), out);
    CHECK(schema_errors(output_schema, json::parse(out)) == std::vector<std::string>{});
  }
  // The validator is not blind: an unknown key and a wrong type are reported.
  CHECK(!schema_errors(input_schema, json::parse(R"({"inputs":[],"stager":1})")).empty());
  CHECK(!schema_errors(input_schema, json::parse(R"({"inputs":[{"rank":0,"keys":[],"lengths":[],"values":[true]}]})"))
             .empty());

  shardplan::kjt::PlanTrafficInput plan;
  plan.world_size = 2;
  plan.local_world_size = 1;
  plan.batch_size = 4;
  shardplan::kjt::TableTraffic table;
  table.module_path = "ebc";
  table.table = "t";
  table.sharding_type = shardplan::ShardingType::kRowWise;
  table.features = {"f"};
  table.num_embeddings = 10;
  table.lengths_per_source = 4;
  table.values_per_source = 6;
  table.weighted = true;
  table.shards = {{0, 5}, {1, 5}};
  plan.tables.push_back(table);
  json rendered = json::parse(shardplan::kjt::plan_traffic_json(plan, shardplan::kjt::plan_traffic(plan)));
  CHECK(schema_errors(output_schema, rendered) == std::vector<std::string>{});
}
