// schemas/{model,topology,planner,case}.schema.json stay true: every example and
// every reference case validates against them (with a small JSON-Schema subset
// validator), and their property names and enums equal the loader's key lists
// and name tables, so the schemas and the loader cannot drift apart.
#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "config/known_keys.h"
#include "config/loader.h"
#include "config/planner_names.h"
#include "support/golden.h"
#include "support/json_schema.h"
#include "support/yaml_json.h"

using nlohmann::json;
namespace fs = std::filesystem;
using namespace shardplan;
using shardplan::testing::load_schema;
using shardplan::testing::schema_errors;

namespace {

json read_input(const std::string& path) {
  if (path.size() > 5 && path.substr(path.size() - 5) == ".json") {
    std::ifstream in(path);
    return json::parse(in);
  }
  return shardplan::testing::yaml_to_json(YAML::LoadFile(path));
}

std::set<std::string> property_names(const json& object_schema) {
  std::set<std::string> out;
  for (const auto& [key, value] : object_schema["properties"].items()) out.insert(key);
  return out;
}

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

const char* kind_schema(InputKind kind) {
  switch (kind) {
    case InputKind::kModel:
      return "model.schema.json";
    case InputKind::kTopology:
      return "topology.schema.json";
    case InputKind::kPlanner:
      return "planner.schema.json";
    case InputKind::kCase:
      return "case.schema.json";
  }
  return "";
}

}  // namespace

TEST_CASE("schemas: property names equal the loader's known keys", "[config]") {
  const std::pair<const char*, const char*> roots[] = {{"model.schema.json", "model"},
                                                       {"topology.schema.json", "topology"},
                                                       {"planner.schema.json", "planner"},
                                                       {"case.schema.json", "case"}};
  auto sections = section_names();
  for (const auto& [file, section] : roots) {
    json schema = load_schema(file);
    INFO(file);
    CHECK(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema");
    CHECK(property_names(schema) == as_set(known_keys(section)));
    CHECK(schema["additionalProperties"] == false);
    // Every $def named after a section lists exactly that section's keys.
    for (const auto& [name, def] : schema["$defs"].items()) {
      if (std::find(sections.begin(), sections.end(), name) == sections.end()) continue;
      INFO("$defs/" << name);
      CHECK(property_names(def) == as_set(known_keys(name)));
      CHECK(def["additionalProperties"] == false);
      for (const auto& [key, property] : def["properties"].items()) {
        INFO(key);
        CHECK((property.contains("description") || property.contains("$ref")));
      }
    }
  }
}

TEST_CASE("schemas: enums equal the name tables", "[config]") {
  const std::vector<std::pair<const char*, std::vector<std::string>>> enums{
      {"data_type", names_of(kDataTypeNames)},
      {"sharding_type", names_of(kShardingTypeNames)},
      {"compute_kernel", names_of(kComputeKernelNames)},
      {"device", names_of(kComputeDeviceNames)},
      {"cache_algorithm", names_of(kCacheAlgorithmNames)},
      {"bounds_check_mode", names_of(kBoundsCheckModeNames)},
      {"module_kind", names_of(kModuleKindNames)},
      {"proposer", names_of(kProposerNames)},
      {"partitioner_type", names_of(kPartitionerNames)},
      {"reservation_policy", names_of(kReservationPolicyNames)},
      {"sort_by", names_of(kGreedySortByNames)},
  };
  for (const char* file : {"model.schema.json", "topology.schema.json", "planner.schema.json", "case.schema.json"}) {
    json schema = load_schema(file);
    for (const auto& [name, names] : enums) {
      INFO(file << " $defs/" << name);
      REQUIRE(schema["$defs"].contains(name));
      CHECK(schema["$defs"][name]["enum"].get<std::vector<std::string>>() == names);
    }
  }
}

TEST_CASE("schemas: every example and every reference case validates", "[config]") {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(std::string(SHARDPLAN_SOURCE_DIR) + "/configs"))
    if (entry.is_regular_file()) files.push_back(entry.path().string());  // subfolders hold other commands' inputs
  // The examples alone must be there, with or without the reference cases.
  REQUIRE(files.size() >= 5);
  if (auto dir = shardplan::testing::cases_dir()) {
    for (const auto& c : shardplan::testing::golden_cases(true)) files.push_back(c.case_path);
    for (const auto& entry : fs::directory_iterator(*dir + "/scale")) {
      std::string name = entry.path().filename().string();
      if (name.rfind("case-", 0) == 0 && name.find(".golden.") == std::string::npos)
        files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  std::map<std::string, json> schemas;
  for (const auto& path : files) {
    INFO(path);
    InputKind kind = validate_file(path, std::nullopt);
    std::string schema_name = kind_schema(kind);
    if (!schemas.count(schema_name)) schemas[schema_name] = load_schema(schema_name);
    auto errors = schema_errors(schemas[schema_name], read_input(path));
    for (const auto& e : errors) FAIL_CHECK(e);
  }
}

TEST_CASE("schemas: the validator rejects what the loader rejects", "[config]") {
  // Guards the mini validator itself: a schema test that accepts everything proves nothing.
  json topology = load_schema("topology.schema.json");
  CHECK(schema_errors(topology, json{{"world_size", 8}, {"hbm_cap", "80 GiB"}}).empty());
  CHECK(schema_errors(topology, json{{"world_size", 8}, {"hbm_cap", "80 GiBs"}}).size() == 1);
  CHECK(schema_errors(topology, json{{"world_sise", 8}}).size() == 2);  // unknown key + missing world_size
  CHECK(schema_errors(topology, json{{"world_size", 0}}).size() == 1);
  CHECK(schema_errors(topology, json{{"world_size", 2}, {"compute_device", "gpu"}}).size() == 1);
  CHECK(schema_errors(topology, json{{"world_size", 2}, {"inter_host_bw", "12.5 GB/s"}}).empty());
  json planner = load_schema("planner.schema.json");
  CHECK(schema_errors(planner, json{{"proposers", {"greedy", "annealing"}}}).size() == 1);
  CHECK(schema_errors(planner, json{{"storage_reservation", {{"dense_tensor_estimate", nullptr}}}}).empty());
}
