// Parity of EmbeddingPerfEstimator with torchrec: every enumerated option of every
// reference case is re-estimated from its golden shards and compared figure by
// figure with torchrec's perf (1e-9 relative).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "config/loader.h"
#include "planner/perf_estimator.h"
#include "support/golden.h"

namespace shardplan {
namespace {

using nlohmann::json;

template <typename Enum, std::size_t N>
Enum enum_field(const NameTable<Enum, N>& table, const json& value) {
  auto parsed = parse_name(table, value.get<std::string>());
  REQUIRE(parsed.has_value());
  return *parsed;
}

// Fills what option_from_golden cannot know from the golden option alone, the way
// the enumerator does: module/table position, batch size, the table's cache params
// and output dtype from its constraints. Clears the perf.
void complete_option(ShardingOption& option, const ModelConfig& model, std::int64_t batch_size) {
  for (std::size_t m = 0; m < model.modules.size(); ++m) {
    if (model.modules[m].path != option.path) continue;
    option.module_index = static_cast<int>(m);
    option.module_kind = model.modules[m].kind;
    for (std::size_t t = 0; t < model.modules[m].tables.size(); ++t)
      if (model.modules[m].tables[t].name == option.name) option.table_index = static_cast<int>(t);
  }
  option.batch_size = batch_size;
  auto it = model.constraints.find(option.name);
  if (it != model.constraints.end()) {
    if (const auto& cp = it->second.cache_params) {
      CacheParams params = option.cache_params.value_or(CacheParams{});
      params.load_factor = cp->load_factor;
      params.algorithm = cp->algorithm;
      params.reserved_memory = cp->reserved_memory;
      params.precision = cp->precision;
      params.prefetch_pipeline = cp->prefetch_pipeline;
      option.cache_params = params;
    }
    option.output_dtype = it->second.output_dtype;
  }
  option.is_weighted = false;
  option.shards.with_run_values([](ShardRun& run) { run.perf.reset(); });
}

// The first perf figure of `got` that differs from `want`, or "" when all match.
std::string first_difference(const Perf& got, const Perf& want) {
  const std::pair<const char*, std::pair<double, double>> parts[] = {
      {"fwd_compute", {got.fwd_compute, want.fwd_compute}},
      {"fwd_comms", {got.fwd_comms, want.fwd_comms}},
      {"bwd_compute", {got.bwd_compute, want.bwd_compute}},
      {"bwd_comms", {got.bwd_comms, want.bwd_comms}},
      {"prefetch_compute", {got.prefetch_compute, want.prefetch_compute}},
  };
  for (const auto& [name, values] : parts)
    if (!testing::close_enough(values.first, values.second))
      return fmt::format("{}: ours {:.17g} != torchrec {:.17g}", name, values.first, values.second);
  return "";
}

TEST_CASE("perf estimator matches torchrec on every option of every case", "[perf][parity]") {
  const auto cases = testing::golden_cases();
  int cases_with_options = 0, cases_matching = 0, options_total = 0, options_matching = 0;
  for (const auto& c : cases) {
    const json golden = testing::load_golden(c);
    const json options = testing::golden_options(c, golden);
    if (options.empty()) continue;
    ++cases_with_options;
    const PlanningInput input = load_case(c.case_path);
    const Topology topology = shardplan::testing::topology_from_golden(golden.at("topology"));
    const EstimatorContext context{topology, input.model, input.planner};
    const std::int64_t batch_size = golden.at("batch_size").get<std::int64_t>();
    const EmbeddingPerfEstimator estimator;
    bool case_ok = true;
    for (const auto& o : options) {
      ++options_total;
      const ShardingOption want = testing::option_from_golden(o);
      ShardingOption got = want;
      complete_option(got, input.model, batch_size);
      const std::string label = fmt::format("{}: {} {}/{}", c.name, want.fqn(), to_string(want.sharding_type),
                                            to_string(want.compute_kernel));
      try {
        estimator.estimate(got, context);
      } catch (const std::exception& e) {
        FAIL_CHECK(label << ": estimator threw: " << e.what());
        case_ok = false;
        continue;
      }
      std::string problem;
      if (got.is_weighted != want.is_weighted)
        problem = fmt::format("is_weighted: ours {} != torchrec {}", got.is_weighted, want.is_weighted);
      for (std::size_t s = 0; problem.empty() && s < want.shards.size(); ++s) {
        std::string diff = first_difference(*got.shards[s].perf, *want.shards[s].perf);
        if (!diff.empty()) problem = fmt::format("shard {}: {}", s, diff);
      }
      if (problem.empty()) {
        ++options_matching;
      } else {
        case_ok = false;
        FAIL_CHECK(label << ": " << problem);
      }
    }
    if (case_ok) ++cases_matching;
  }
  WARN(fmt::format("perf parity: {}/{} cases, {}/{} options match", cases_matching, cases_with_options,
                   options_matching, options_total));
  CHECK(options_matching == options_total);
}

}  // namespace
}  // namespace shardplan
