// The plan file reader keeps schemas/plan.schema.json's rules: driven by the schema
// itself, every required key it lists is required by the reader, every key it
// forbids (additionalProperties: false) is refused, every enum value it allows is
// read; and a real plan reads back with the figures it holds.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "config/config_test_util.h"
#include "config/plan_file.h"
#include "support/json_schema.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

using nlohmann::json;

json real_plan() {
  static const json plan = [] {
    RunResult r = run_shardplan("plan --config " + kSourceDir + "/configs/quickstart.json --stats none");
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
  }();
  return plan;
}

// The problems read_plan_file reports for `doc`, one formatted line each ("" when none).
std::string problems(const json& doc) {
  const std::string path = write_scratch("reader-plan.json", doc.dump(1));
  try {
    read_plan_file(path);
  } catch (const shardplan::InputError& e) {
    return e.format();
  }
  return "";
}

// (object in the plan, its schema) for every object kind of the plan file.
std::vector<std::pair<std::string, std::pair<json::json_pointer, json>>> objects(const json& schema) {
  const json defs = schema["$defs"];
  return {
      {"root", {json::json_pointer(""), schema}},
      {"topology", {json::json_pointer("/topology"), schema["properties"]["topology"]}},
      {"shardplan", {json::json_pointer("/shardplan"), schema["properties"]["shardplan"]}},
      {"per_rank", {json::json_pointer("/per_rank/0"), schema["properties"]["per_rank"]["items"]}},
      {"summary", {json::json_pointer("/summary"), schema["properties"]["summary"]}},
      {"table", {json::json_pointer("/plan/sparse.ebc/t_user"), defs["table"]}},
      {"shard",
       {json::json_pointer("/plan/sparse.ebc/t_user/shards/0"), defs["table"]["properties"]["shards"]["items"]}},
      {"storage", {json::json_pointer("/reserved/0"), defs["storage"]}},
      {"perf", {json::json_pointer("/per_rank/0/perf"), defs["perf"]}},
  };
}

TEST_CASE("plan file reader: a plan the planner wrote reads back", "[config][plan_file]") {
  const json doc = real_plan();
  REQUIRE(problems(doc).empty());
  const PlanFile plan = read_plan_file(write_scratch("reader-ok.json", doc.dump(2)));
  CHECK(plan.model == doc["model"]);
  CHECK(plan.world_size == doc["topology"]["world_size"]);
  CHECK(*plan.inputs_sha256 == doc["shardplan"]["inputs_sha256"]);
  CHECK(plan.tables.size() == doc["plan"]["sparse.ebc"].size());
  CHECK(plan.summary.max_rank_perf == doc["summary"]["max_rank_perf"].get<double>());
  REQUIRE(plan.ranks.size() == doc["per_rank"].size());
  CHECK(plan.ranks[1].perf.total == doc["per_rank"][1]["perf"]["total"].get<double>());
  CHECK(plan.ranks[1].storage.hbm == doc["per_rank"][1]["hbm"].get<std::int64_t>());
  const PlanFileTable& t = plan.tables.front();
  CHECK(t.shards.front().sizes ==
        doc["plan"]["sparse.ebc"][t.name]["shards"][0]["sizes"].get<std::vector<std::int64_t>>());
}

TEST_CASE("plan file reader: every key the schema requires is required", "[config][plan_file]") {
  const json schema = load_schema("plan.schema.json");
  for (const auto& [kind, where] : objects(schema)) {
    const auto& [pointer, object_schema] = where;
    for (const auto& key : object_schema.value("required", json::array())) {
      json doc = real_plan();
      REQUIRE(doc.contains(pointer));
      doc[pointer].erase(key.get<std::string>());
      INFO(kind << " without " << key);
      // Without "schema" the file is no plan at all, which the reader says instead.
      const std::string expected = key == "schema" ? "not a plan file: schemas/plan.schema.json requires \"schema\""
                                                   : "missing required key '" + key.get<std::string>() + "'";
      CHECK(problems(doc).find(expected) != std::string::npos);
      // The schema agrees that the file is broken.
      CHECK_FALSE(schema_errors(schema, doc).empty());
    }
  }
}

TEST_CASE("plan file reader: keys the schema forbids are refused, as the schema does", "[config][plan_file]") {
  const json schema = load_schema("plan.schema.json");
  for (const auto& [kind, where] : objects(schema)) {
    const auto& [pointer, object_schema] = where;
    json doc = real_plan();
    doc[pointer]["zz_unknown"] = 1;
    INFO(kind);
    const bool closed = object_schema.value("additionalProperties", true) == false;
    const bool schema_refuses = !schema_errors(schema, doc).empty();
    const bool reader_refuses = problems(doc).find("unknown key 'zz_unknown'") != std::string::npos;
    CHECK(schema_refuses == closed);
    CHECK(reader_refuses == closed);
  }
}

TEST_CASE("plan file reader: the schema's enums are the reader's names", "[config][plan_file]") {
  const json schema = load_schema("plan.schema.json");
  const json table = schema["$defs"]["table"]["properties"];
  for (const char* field : {"sharding_type", "compute_kernel"})
    for (const auto& value : table[field]["enum"]) {
      json doc = real_plan();
      doc["plan"]["sparse.ebc"]["t_user"][field] = value;
      INFO(field << " = " << value);
      CHECK(problems(doc).empty());
    }
  json doc = real_plan();
  doc["plan"]["sparse.ebc"]["t_user"]["compute_kernel"] = "fusd";
  CHECK(problems(doc).find("unknown compute kernel 'fusd', did you mean 'fused'?") != std::string::npos);
  CHECK_FALSE(schema_errors(schema, doc).empty());
}

TEST_CASE("plan file reader: sizes, offsets and bytes are never negative, as the schema says", "[config][plan_file]") {
  const json schema = load_schema("plan.schema.json");
  const std::vector<std::pair<std::string, std::string>> fields{
      {"/plan/sparse.ebc/t_user/shards/0/sizes/0", "plan.sparse.ebc.t_user.shards[0].sizes[0]"},
      {"/plan/sparse.ebc/t_user/shards/0/offsets/1", "plan.sparse.ebc.t_user.shards[0].offsets[1]"},
      {"/plan/sparse.ebc/t_user/shards/0/storage/hbm", "plan.sparse.ebc.t_user.shards[0].storage.hbm"},
      {"/plan/sparse.ebc/t_user/total_storage/ddr", "plan.sparse.ebc.t_user.total_storage.ddr"},
      {"/per_rank/1/hbm", "per_rank[1].hbm"},
      {"/reserved/0/ddr", "reserved[0].ddr"},
  };
  for (const auto& [pointer, key_path] : fields) {
    json doc = real_plan();
    REQUIRE(doc.contains(json::json_pointer(pointer)));
    doc[json::json_pointer(pointer)] = -3;
    INFO(pointer);
    const std::string found = problems(doc);
    CHECK(found.find(": " + key_path + ": expected a non-negative integer, found -3") != std::string::npos);
    CHECK_FALSE(schema_errors(schema, doc).empty());
    // Zero is a size an empty shard has.
    doc[json::json_pointer(pointer)] = 0;
    CHECK(problems(doc).empty());
  }
}

}  // namespace
}  // namespace shardplan::testing
