// read_plan_file reads a JSON plan into the compact tree; before, every plan was
// read from yaml-cpp's tree of it (still what parse_document builds). The one
// plan reader must read both the same: equal PlanFile values for random plans,
// and the same messages, at the same positions, for every kind of damage.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "common/error.h"
#include "config/plan_file.h"
#include "config/plan_file_tree.h"
#include "document/document.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

using nlohmann::json;

const json& tree_test_quickstart_plan() {
  static const json plan = [] {
    RunResult r = run_shardplan("plan --config " + kSourceDir + "/configs/quickstart.json --stats none");
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
  }();
  return plan;
}

// Every field of a PlanFile, doubles to the last bit, one line each.
std::string plan_file_fields_text(const PlanFile& p) {
  std::ostringstream out;
  out.precision(17);
  auto perf = [&](const PlanFilePerf& f) {
    out << f.fwd_compute << ' ' << f.fwd_comms << ' ' << f.bwd_compute << ' ' << f.bwd_comms << ' '
        << f.prefetch_compute << ' ' << f.total << '\n';
  };
  auto storage = [&](const PlanFileStorage& s) { out << s.hbm << ' ' << s.ddr << '\n'; };
  out << p.file << '\n'
      << p.model << '\n'
      << p.tool_version.value_or("-") << '\n'
      << p.inputs_sha256.value_or("-") << '\n';
  if (p.inputs)
    for (const PlanFileInputField& f : *p.inputs) out << f.path << " = " << f.value << '\n';
  out << p.world_size << ' ' << p.local_world_size << ' ' << p.compute_device << '\n';
  for (const auto& s : p.devices) storage(s);
  for (const auto& s : p.reserved) storage(s);
  for (const PlanFileTable& t : p.tables) {
    out << t.fqn() << ' ' << static_cast<int>(t.sharding_type) << ' ' << static_cast<int>(t.compute_kernel) << ' '
        << t.total_perf << ' ' << t.line << ':' << t.column << '\n';
    for (int r : t.ranks) out << r << ' ';
    storage(t.total_storage);
    for (const PlanFileShard& s : t.shards) {
      out << s.rank;
      for (auto v : s.offsets) out << ' ' << v;
      for (auto v : s.sizes) out << ' ' << v;
      out << '\n';
      perf(s.perf);
      storage(s.storage);
    }
  }
  for (const PlanFileRank& r : p.ranks) {
    storage(r.storage);
    perf(r.perf);
    out << r.num_shards << '\n';
  }
  const PlanFileSummary& s = p.summary;
  out << s.perf_rating << ' ' << s.max_rank_perf << ' ' << s.max_rank_hbm << ' ' << s.total_hbm << ' ' << s.total_ddr
      << ' ' << s.num_proposals << ' ' << s.num_plans << ' ' << s.storage_reservation << ' '
      << s.lower_bound.value_or(-1) << ' ' << s.lower_bound_gap.value_or(-1) << ' ' << s.lower_bound_binding << '\n';
  for (const PlanFileMemory& m : p.memory) {
    storage(m.used);
    storage(m.usable);
  }
  return out.str();
}

// What each tree's reading of `text` gives: the PlanFile's fields, or the error.
std::string read_with_yaml_tree(const std::string& text) {
  try {
    const Document doc = parse_document("p.json", text);
    return plan_file_fields_text(read_plan_file_tree(doc.file, doc.root));
  } catch (const InputError& e) {
    return "error:\n" + e.format();
  }
}
std::string read_with_compact_tree(const std::string& text) {
  try {
    const JsonDocument doc = parse_json_document("p.json", text);
    return plan_file_fields_text(read_plan_file_tree(doc.file, doc.root()));
  } catch (const InputError& e) {
    return "error:\n" + e.format();
  }
}
// And what read_plan_file's entry for text gives (the compact tree for JSON).
std::string read_as_command(const std::string& text) {
  try {
    return plan_file_fields_text(parse_plan_file("p.json", text));
  } catch (const InputError& e) {
    return "error:\n" + e.format();
  }
}

// A random plan in the quickstart plan's shape: a random world, tables with
// random names, shards, ranks, figures (small and large, integer and not),
// optional blocks present or not.
json random_plan(std::mt19937& rng) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  auto figure = [&]() -> json {
    switch (pick(4)) {
      case 0:
        return pick(1000);
      case 1:
        return std::uniform_real_distribution<double>(0, 1e6)(rng);
      case 2:
        return std::uniform_real_distribution<double>(0, 1e-3)(rng);
      default:
        return 1e15 + pick(1000);
    }
  };
  auto bytes = [&]() -> json { return static_cast<std::int64_t>(pick(1 << 30)) * (1 + pick(64)); };
  json plan = tree_test_quickstart_plan();
  const int world = 1 + pick(8);
  plan["topology"]["world_size"] = world;
  plan["topology"]["local_world_size"] = 1 + pick(world);
  auto storage_list = [&] {
    json list = json::array();
    for (int r = 0; r < world; ++r) list.push_back({{"hbm", bytes()}, {"ddr", bytes()}});
    return list;
  };
  plan["topology"]["devices"] = storage_list();
  plan["reserved"] = storage_list();
  const json table_template = plan["plan"]["sparse.ebc"].begin().value();
  json perf = table_template["shards"][0]["perf"];
  const char* kTypes[] = {"table_wise", "row_wise", "column_wise", "table_row_wise", "data_parallel"};
  const char* kKernels[] = {"fused", "dense", "fused_uvm", "fused_uvm_caching"};
  json modules = json::object();
  for (int m = 0, modules_count = 1 + pick(3); m < modules_count; ++m) {
    json tables = json::object();
    for (int t = 0, count = 1 + pick(6); t < count; ++t) {
      json table = table_template;
      table["sharding_type"] = kTypes[pick(5)];
      table["compute_kernel"] = kKernels[pick(4)];
      table["total_perf"] = figure();
      table["total_storage"] = {{"hbm", bytes()}, {"ddr", bytes()}};
      json shards = json::array();
      json ranks = json::array();
      for (int s = 0, n = 1 + pick(4); s < n; ++s) {
        json shard = table_template["shards"][0];
        shard["rank"] = pick(world);
        ranks.push_back(shard["rank"]);
        shard["offsets"] = {pick(1000), pick(64)};
        shard["sizes"] = {1 + pick(100000), 1 + pick(256)};
        for (auto& [key, value] : shard["perf"].items()) value = figure();
        shard["storage"] = {{"hbm", bytes()}, {"ddr", bytes()}};
        shards.push_back(shard);
      }
      table["shards"] = shards;
      table["ranks"] = ranks;
      tables["t" + std::to_string(t) + "_" + std::to_string(pick(1000))] = table;
    }
    modules["mod" + std::to_string(m) + ".ebc"] = tables;
  }
  plan["plan"] = modules;
  json per_rank = json::array();
  for (int r = 0; r < world; ++r) {
    json rank = plan["per_rank"][0];
    rank["hbm"] = bytes();
    rank["ddr"] = bytes();
    for (auto& [key, value] : rank["perf"].items()) value = figure();
    rank["num_shards"] = pick(10);
    per_rank.push_back(rank);
  }
  plan["per_rank"] = per_rank;
  if (plan.contains("memory")) {
    json memory_ranks = json::array();
    for (int r = 0; r < world; ++r)
      memory_ranks.push_back(
          {{"hbm_used", bytes()}, {"hbm_usable", bytes()}, {"ddr_used", bytes()}, {"ddr_usable", bytes()}});
    plan["memory"]["per_rank"] = memory_ranks;
    if (pick(4) == 0) plan.erase("memory");
  }
  plan["summary"]["perf_rating"] = figure();
  plan["summary"]["max_rank_perf"] = figure();
  if (pick(3) == 0) plan.erase("shardplan");
  if (pick(3) == 0 && plan["summary"].contains("lower_bound")) plan["summary"]["lower_bound"] = nullptr;
  return plan;
}

// Every value's JSON pointer in `doc`.
void value_pointers(const json& doc, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  out.push_back(at);
  if (doc.is_object())
    for (const auto& [key, value] : doc.items()) value_pointers(value, at / key, out);
  else if (doc.is_array())
    for (std::size_t i = 0; i < doc.size(); ++i) value_pointers(doc[i], at / i, out);
}

}  // namespace

TEST_CASE("plan file trees: random plans read the same from either tree", "[config][plan_file]") {
  std::mt19937 rng(38);
  for (int i = 0; i < 60; ++i) {
    const json plan = random_plan(rng);
    const std::string text = plan.dump(i % 2 ? 2 : -1);
    INFO("plan " << i);
    const std::string expected = read_with_yaml_tree(text);
    REQUIRE(expected.rfind("error", 0) != 0);  // a valid plan: the fields are compared, not errors
    CHECK(read_with_compact_tree(text) == expected);
    CHECK(read_as_command(text) == expected);
  }
}

TEST_CASE("plan file trees: every damage gives the same messages at the same positions", "[config][plan_file]") {
  // One value of the quickstart plan replaced by a value of another kind, a
  // negative or out-of-range number, an unknown name, or its key removed or
  // misspelt; then the messages of both readings are compared whole.
  const json plan = tree_test_quickstart_plan();
  std::vector<json::json_pointer> pointers;
  value_pointers(plan, json::json_pointer(""), pointers);
  const json kReplacements[] = {json(-1),       json(1e300), json("row_wize"), json(nullptr), json::array(),
                                json::object(), json(2.5),   json(99999),      json(true),    json("")};
  std::mt19937 rng(24);
  int damaged = 0;
  for (std::size_t i = 1; i < pointers.size(); ++i) {
    json doc = plan;
    const json::json_pointer& at = pointers[i];
    const int how = static_cast<int>(rng() % 12);
    if (how < 10) {
      doc[at] = kReplacements[how];
    } else if (doc[at.parent_pointer()].is_object()) {
      const std::string key = at.back();
      json value = doc[at];
      doc[at.parent_pointer()].erase(key);
      if (how == 11) doc[at.parent_pointer()][key + "x"] = value;  // misspelt
    } else {
      doc[at.parent_pointer()].erase(std::stoul(at.back()));
    }
    const std::string text = doc.dump(1);
    INFO(at.to_string() << " damage " << how);
    const std::string expected = read_with_yaml_tree(text);
    CHECK(read_with_compact_tree(text) == expected);
    damaged += expected.rfind("error", 0) == 0 ? 1 : 0;
  }
  CHECK(damaged > static_cast<int>(pointers.size()) / 2);
}

TEST_CASE("plan file trees: a YAML plan is read from yaml-cpp's tree, as before", "[config][plan_file]") {
  // JSON is YAML: the same plan text named .yaml goes through yaml-cpp's parser.
  const std::string text = tree_test_quickstart_plan().dump(2);
  const PlanFile from_yaml = parse_plan_file("p.yaml", text);
  const PlanFile from_json = parse_plan_file("p.json", text);
  std::string yaml_fields = plan_file_fields_text(from_yaml);
  yaml_fields.replace(0, yaml_fields.find('\n'), "p.json");
  CHECK(yaml_fields == plan_file_fields_text(from_json));
  CHECK(from_yaml.tables.size() == tree_test_quickstart_plan()["plan"]["sparse.ebc"].size());
}

TEST_CASE("plan file trees: a plan file is recognised by its top-level keys", "[config][plan_file]") {
  const std::string text = tree_test_quickstart_plan().dump(1);
  auto plan = parse_if_plan_file("p.json", text);
  REQUIRE(plan);
  CHECK(plan->world_size == tree_test_quickstart_plan()["topology"]["world_size"]);
  // Without "shardplan" (older plans) the "schema" key says it.
  json old = tree_test_quickstart_plan();
  old.erase("shardplan");
  CHECK(parse_if_plan_file("p.json", old.dump()));
  // A planner input is not a plan, nor is a text without either word.
  CHECK_FALSE(parse_if_plan_file("c.json", slurp(kQuickstartConfig)));
  CHECK_FALSE(parse_if_plan_file("c.json", R"({"model": {"schema_notes": 1}})"));
  // A plan with a problem is reported as a plan.
  json bad = tree_test_quickstart_plan();
  bad["topology"]["world_size"] = 0;
  try {
    parse_if_plan_file("p.json", bad.dump(1));
    FAIL("a plan with world_size 0 was accepted");
  } catch (const InputError& e) {
    CHECK(e.format().find("p.json:") == 0);
    CHECK(e.format().find("topology.world_size: expected a positive integer, found 0") != std::string::npos);
  }
}

}  // namespace shardplan::testing
