// a2a --plan reads a JSON plan into the compact JSON tree and a YAML plan into
// yaml-cpp's; one reader reads both. JSON text is YAML too, so the same damaged
// plan named .json and .yaml must give the same messages at the same positions.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>

#include "common/error.h"
#include "config/config_test_util.h"
#include "config/loader.h"
#include "kjt/plan_reader.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

using nlohmann::json;

// The messages of reading `text` as `name` (the file's name replaced by FILE), or "ok".
std::string a2a_plan_messages(const std::string& name, const std::string& text, const ModelConfig& model) {
  const std::string path = write_scratch(name, text);
  try {
    kjt::read_plan_traffic_input(path, model, "quickstart", kjt::Protocol::kLengthsThenValues);
  } catch (const InputError& e) {
    std::string out = e.format();
    for (std::size_t at; (at = out.find(path)) != std::string::npos;) out.replace(at, path.size(), "FILE");
    return out;
  }
  return "ok";
}

}  // namespace

TEST_CASE("a2a plan reader: a damaged plan reads the same from either tree", "[kjt][plan_file]") {
  RunResult planned = run_shardplan("plan --config " + kQuickstartConfig + " --stats none");
  REQUIRE(planned.exit_code == 0);
  const json plan = json::parse(planned.out);
  const ModelConfig model = load_case(kQuickstartConfig).model;
  REQUIRE(a2a_plan_messages("a2a-trees.json", plan.dump(1), model) == "ok");
  // The parts this reader reads: the topology and every shard's rank, sizes, offsets.
  std::vector<json::json_pointer> pointers{json::json_pointer("/topology/world_size"),
                                           json::json_pointer("/topology/local_world_size")};
  for (const auto& [module, tables] : plan["plan"].items())
    for (const auto& [table, entry] : tables.items()) {
      const json::json_pointer at = json::json_pointer("/plan") / module / table;
      pointers.push_back(at / "sharding_type");
      for (std::size_t s = 0; s < entry["shards"].size(); ++s)
        for (const char* key : {"rank", "sizes", "offsets"}) pointers.push_back(at / "shards" / s / key);
    }
  const json kReplacements[] = {json(-1), json("x"), json(nullptr), json::array({1}), json(2.5), json(99999)};
  int failed = 0;
  for (const json::json_pointer& at : pointers)
    for (const json& replacement : kReplacements) {
      json doc = plan;
      doc[at] = replacement;
      const std::string text = doc.dump(1);
      INFO(at.to_string() << " = " << replacement.dump());
      const std::string from_yaml = a2a_plan_messages("a2a-trees.yaml", text, model);
      CHECK(a2a_plan_messages("a2a-trees.json", text, model) == from_yaml);
      failed += from_yaml == "ok" ? 0 : 1;
    }
  CHECK(failed > static_cast<int>(pointers.size()) * 3);
}

}  // namespace shardplan::testing
