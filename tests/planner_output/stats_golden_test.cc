// Golden parity of the EmbeddingStats text: our rendering of torchrec's chosen plan
// must equal torchrec's logged table line by line (only the "ran for N s" timing is
// taken from the golden, since it is a wall-clock figure).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "config/loader.h"
#include "planner_output/stats.h"
#include "support/golden.h"

namespace shardplan {
namespace {

using testing::GoldenCase;
using OptionKey = std::tuple<std::string, std::string, std::string>;  // fqn, type, kernel

// The golden's "ran for N s" figure, so that the centred line can match.
double golden_run_time(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    auto pos = line.find("ran for ");
    if (pos != std::string::npos) return std::stod(line.substr(pos + 8));
  }
  return 0;
}

Storage storage_or_zero(const nlohmann::json& r, const char* key) {
  if (!r.contains(key) || r.at(key).is_null()) return {};
  return Storage{r.at(key).at("hbm").get<std::int64_t>(), r.at(key).at("ddr").get<std::int64_t>()};
}

ReservationResult reservation_from_golden(const nlohmann::json& r) {
  ReservationResult res;
  res.policy = parse_torchrec_name(kReservationPolicyNames, r.at("policy").get<std::string>());
  res.percentage = r.at("percentage").get<double>();
  res.dense_storage = storage_or_zero(r, "dense_storage");
  res.kjt_storage = storage_or_zero(r, "kjt_storage");
  return res;
}

// The case's model constraints and planner options, through our loader.
PlanningInput load_case_input(const GoldenCase& c) { return load_case(c.case_path); }

std::map<OptionKey, const nlohmann::json*> index_options(const nlohmann::json& options) {
  std::map<OptionKey, const nlohmann::json*> by_key;
  for (const auto& o : options)
    by_key[{o.at("fqn").get<std::string>(), o.at("sharding_type").get<std::string>(),
            o.at("compute_kernel").get<std::string>()}] = &o;
  return by_key;
}

// The golden plan as torchrec's best_plan: the golden keeps the plan's module and
// table order (read with ordered_json), which is torchrec's best_plan order.
std::vector<ShardingOption> plan_from_golden(const nlohmann::ordered_json& plan,
                                             const std::map<OptionKey, const nlohmann::json*>& options,
                                             std::int64_t batch_size, std::string* error) {
  std::vector<ShardingOption> out;
  for (const auto& [path, tables] : plan.items())
    for (const auto& [table, entry] : tables.items()) {
      OptionKey key{path + "." + table, entry.at("sharding_type").get<std::string>(),
                    entry.at("compute_kernel").get<std::string>()};
      auto it = options.find(key);
      if (it == options.end()) {
        *error = "no option for " + std::get<0>(key);
        return {};
      }
      nlohmann::json option = *it->second;
      option["shards"] = testing::expand_shards(nlohmann::json::parse(entry.at("shards").dump()));
      ShardingOption so = testing::option_from_golden(option);
      so.batch_size = batch_size;
      out.push_back(std::move(so));
    }
  return out;
}

// The failed proposal torchrec logs for an infeasible case is not in the golden
// except as its parameter table: read (fqn, sharding, kernel) from there.
std::vector<ShardingOption> last_proposal_from_text(const std::vector<std::string>& lines,
                                                    const std::map<OptionKey, const nlohmann::json*>& options,
                                                    std::int64_t batch_size, std::string* error) {
  const std::map<std::string, std::string> abbr_to_type{
      {"DP", "data_parallel"},    {"TW", "table_wise"},          {"CW", "column_wise"}, {"RW", "row_wise"},
      {"TWRW", "table_row_wise"}, {"TWCW", "table_column_wise"}, {"GS", "grid_shard"}};
  std::vector<ShardingOption> out;
  std::size_t i = 0;
  while (i < lines.size() && lines[i].find("Parameter Info:") == std::string::npos) ++i;
  for (i += 3; i < lines.size(); ++i) {
    std::stringstream row(lines[i]);
    std::string hash, fqn, abbr, kernel;
    row >> hash >> fqn >> abbr >> kernel;
    if (fqn.empty() || fqn == "#") break;
    auto it = options.find({fqn, abbr_to_type.at(abbr), kernel});
    if (it == options.end()) {
      *error = "no option for " + fqn;
      return {};
    }
    ShardingOption so = testing::option_from_golden(*it->second);
    so.batch_size = batch_size;
    so.shards.with_ranks([](std::size_t) { return -1; });  // torchrec marks the failed proposal so
    out.push_back(std::move(so));
  }
  return out;
}

// Scale goldens carry no options: the per-table facts stats reads (shape, element
// size, pooling factors, pooled) come from the case's model as our loader reads it.
std::map<OptionKey, const nlohmann::json*> options_from_model(const ModelConfig& model,
                                                              const nlohmann::ordered_json& plan,
                                                              nlohmann::json& storage) {
  storage = nlohmann::json::array();
  for (const auto& module : model.modules)
    for (const auto& table : module.tables) {
      if (!plan.contains(module.path) || !plan.at(module.path).contains(table.name)) continue;
      const auto& entry = plan.at(module.path).at(table.name);
      auto c = model.constraints.find(table.name);
      nlohmann::json o;
      o["fqn"] = module.path + "." + table.name;
      o["name"] = table.name;
      o["path"] = module.path;
      o["sharding_type"] = entry.at("sharding_type").get<std::string>();
      o["compute_kernel"] = entry.at("compute_kernel").get<std::string>();
      o["partition_by"] = "device";  // not read by stats
      o["tensor_shape"] = {table.num_embeddings, table.embedding_dim};
      // Training EBC/EC store every non-fp32 table as fp16 (2 bytes).
      o["tensor_element_size"] = table.data_type == DataType::kFp32 ? 4 : 2;
      o["input_lengths"] = c == model.constraints.end() ? std::vector<double>{1.0} : c->second.pooling_factors;
      o["is_pooled"] = module.kind == ModuleKind::kEmbeddingBag;
      o["is_weighted"] = false;  // the scale models are unweighted
      const auto& cp = entry.at("cache_params");
      o["cache_load_factor"] =
          cp.is_null() ? nlohmann::json(nullptr) : nlohmann::json::parse(cp.at("load_factor").dump());
      o["shards"] = nlohmann::json::array();
      storage.push_back(std::move(o));
    }
  return index_options(storage);
}

// Compares line by line; returns the number of differing lines (reported).
int compare_lines(const std::string& name, const std::vector<std::string>& expected,
                  const std::vector<std::string>& actual) {
  int mismatches = 0;
  std::size_t n = std::max(expected.size(), actual.size());
  for (std::size_t i = 0; i < n; ++i) {
    std::string e = i < expected.size() ? expected[i] : "<missing>";
    std::string a = i < actual.size() ? actual[i] : "<missing>";
    if (e == a) continue;
    if (++mismatches <= 5)
      FAIL_CHECK("case " << name << " line " << i + 1 << "\n  torchrec: [" << e << "]\n  ours:     [" << a << "]");
  }
  if (mismatches > 5) FAIL_CHECK("case " << name << ": " << mismatches << " differing lines in all");
  return mismatches;
}

}  // namespace

TEST_CASE("stats text equals torchrec's EmbeddingStats for every golden case", "[stats][golden]") {
  int compared = 0, matched = 0;
  for (const GoldenCase& c : testing::golden_cases()) {
    std::ifstream in(c.golden_path);
    auto ordered = nlohmann::ordered_json::parse(in);
    nlohmann::json golden = testing::load_golden(c);
    if (!golden.contains("stats_text") || golden.at("stats_text").is_null()) continue;
    auto expected = shardplan::testing::split_lines(golden.at("stats_text").get<std::string>());
    if (expected.empty()) continue;

    auto options = testing::golden_options(c, golden);
    auto by_key = index_options(options);
    const auto batch_size = golden.at("batch_size").get<std::int64_t>();
    std::string error;
    const bool has_plan = golden.contains("plan") && !golden.at("plan").is_null();
    std::vector<ShardingOption> plan = has_plan ? plan_from_golden(ordered.at("plan"), by_key, batch_size, &error)
                                                : last_proposal_from_text(expected, by_key, batch_size, &error);
    ++compared;
    if (!error.empty()) {
      FAIL_CHECK("case " << c.name << ": " << error);
      continue;
    }
    Topology topology = shardplan::testing::topology_from_golden(golden.at("topology"));
    ReservationResult reservation = reservation_from_golden(golden.at("reservation"));
    PlanningInput case_input = load_case_input(c);
    const auto& constraints = case_input.model.constraints;

    StatsInput input;
    input.plan = &plan;
    input.has_plan = has_plan;
    input.topology = &topology;
    input.reservation = &reservation;
    input.batch_size = batch_size;
    input.num_proposals = golden.at("num_proposals").get<std::int64_t>();
    input.num_plans = golden.at("num_plans").get<std::int64_t>();
    input.run_time_seconds = golden_run_time(expected);
    input.constraints = &constraints;
    input.is_inference = case_input.planner.is_inference;
    StatsReport report = compute_stats_report(input);
    if (compare_lines(c.name, expected, render_stats_lines(report)) == 0) ++matched;

    // The JSON renderer carries the same report.
    auto json = render_stats_json(report);
    CHECK(json.at("num_proposals") == input.num_proposals);
  }
  WARN("stats text: " << matched << "/" << compared << " golden cases match exactly");
  CHECK(matched == compared);
}

}  // namespace shardplan

namespace shardplan {

TEST_CASE("stats text equals torchrec's for the scale cases with a plan", "[stats][golden][scale]") {
  int compared = 0, matched = 0;
  for (const GoldenCase& c : testing::golden_cases(/*include_scale=*/true)) {
    if (c.name.rfind("scale-", 0) != 0) continue;
    std::ifstream in(c.golden_path);
    auto golden = nlohmann::ordered_json::parse(in);
    if (!golden.contains("plan") || !golden.contains("stats_text")) continue;
    auto expected = shardplan::testing::split_lines(golden.at("stats_text").get<std::string>());
    PlanningInput case_input = load_case_input(c);
    nlohmann::json option_storage;
    auto by_key = options_from_model(case_input.model, golden.at("plan"), option_storage);
    const auto batch_size = golden.at("batch_size").get<std::int64_t>();
    std::string error;
    auto plan = plan_from_golden(golden.at("plan"), by_key, batch_size, &error);
    ++compared;
    if (!error.empty()) {
      FAIL_CHECK("case " << c.name << ": " << error);
      continue;
    }
    auto plain = nlohmann::json::parse(golden.dump());
    Topology topology = shardplan::testing::topology_from_golden(plain.at("topology"));
    ReservationResult reservation = reservation_from_golden(plain.at("reservation"));
    const auto& constraints = case_input.model.constraints;
    StatsInput input;
    input.plan = &plan;
    input.topology = &topology;
    input.reservation = &reservation;
    input.batch_size = batch_size;
    input.num_proposals = plain.at("num_proposals").get<std::int64_t>();
    input.num_plans = plain.at("num_plans").get<std::int64_t>();
    input.run_time_seconds = golden_run_time(expected);
    input.constraints = &constraints;
    input.is_inference = case_input.planner.is_inference;
    if (compare_lines(c.name, expected, render_stats_lines(compute_stats_report(input))) == 0) ++matched;
  }
  WARN("stats text (scale): " << matched << "/" << compared << " golden cases match exactly");
  CHECK(matched == compared);
}

}  // namespace shardplan
