// The whole planner loop against torchrec's goldens: golden options as the search
// space, the case's reservation/proposers/partitioner, and every figure of the
// chosen plan compared.
#include <catch2/catch.hpp>
#include <sstream>

#include "config/loader.h"
#include "planner/planner.h"
#include "planner/planner_parity_support.h"
#include "planner/reservations/storage_reservation.h"
#include "planner/run.h"
#include "planner_output/stats.h"

#include "planner/partitioners/partitioner_factory.h"

namespace shardplan::testing {
namespace {

std::string perf_diff(const std::string& where, const nlohmann::json& want, const Perf& got) {
  const std::pair<const char*, double> parts[] = {{"fwd_compute", got.fwd_compute},
                                                  {"fwd_comms", got.fwd_comms},
                                                  {"bwd_compute", got.bwd_compute},
                                                  {"bwd_comms", got.bwd_comms},
                                                  {"prefetch_compute", got.prefetch_compute}};
  for (const auto& [name, value] : parts) {
    double w = want.at(name).get<double>();
    if (!close_enough(w, value)) {
      std::ostringstream s;
      s.precision(17);
      s << where << " perf." << name << ": torchrec " << w << " != ours " << value;
      return s.str();
    }
  }
  return "";
}

// The first difference between torchrec's golden and our planner's result, or "".
std::string compare_result(const nlohmann::json& golden, const PlanResult& result, const Topology& topology) {
  std::ostringstream d;
  d.precision(17);

  const auto& reserved = golden.at("reserved");
  if (reserved.is_null()) {
    if (result.reservation) return "torchrec's reservation failed, ours succeeded";
  } else {
    if (!result.reservation) return "our reservation failed: " + result.failure->stage_reason;
    for (std::size_t r = 0; r < reserved.size(); ++r) {
      Storage want{reserved[r]["hbm"].get<std::int64_t>(), reserved[r]["ddr"].get<std::int64_t>()};
      Storage got = result.reservation->reserved.devices.at(r).storage;
      if (want != got) {
        d << "reserved rank " << r << ": torchrec (" << want.hbm << ", " << want.ddr << ") != ours (" << got.hbm << ", "
          << got.ddr << ")";
        return d.str();
      }
    }
  }
  if (golden.contains("num_proposals") && golden["num_proposals"].get<int>() != result.num_proposals) {
    d << "num_proposals: torchrec " << golden["num_proposals"].get<int>() << " != ours " << result.num_proposals;
    return d.str();
  }
  if (golden.contains("num_plans") && golden["num_plans"].get<int>() != result.num_plans) {
    d << "num_plans: torchrec " << golden["num_plans"].get<int>() << " != ours " << result.num_plans;
    return d.str();
  }
  if (golden.contains("error")) {
    std::string want = golden["error"].value("error_type", "");
    if (result.ok()) return "torchrec failed with " + want + ", ours found a plan";
    std::string got(name_of(kPlannerErrorTypeNames, result.failure->error_type));
    if (want != got) return "error_type: torchrec " + want + " != ours " + got;
    return "";
  }
  if (!result.ok())
    return "torchrec found a plan, ours failed: " +
           std::string(name_of(kPlannerErrorTypeNames, result.failure->error_type)) + " " +
           std::string(name_of(kFailureStageNames, result.failure->stage)) + " " + result.failure->stage_reason;

  std::size_t golden_tables = 0;
  for (const auto& [path, tables] : golden.at("plan").items()) {
    for (const auto& [name, want] : tables.items()) {
      ++golden_tables;
      const ShardingOption* got = nullptr;
      for (const auto& o : result.plan)
        if (o.path == path && o.name == name) got = &o;
      std::string where = path + "." + name;
      if (!got) return where + ": missing from our plan";
      if (want.at("sharding_type").get<std::string>() != to_string(got->sharding_type))
        return where + " sharding_type: torchrec " + want["sharding_type"].get<std::string>() + " != ours " +
               std::string(to_string(got->sharding_type));
      if (want.at("compute_kernel").get<std::string>() != to_string(got->compute_kernel))
        return where + " compute_kernel: torchrec " + want["compute_kernel"].get<std::string>() + " != ours " +
               std::string(to_string(got->compute_kernel));
      const nlohmann::json shards = expand_shards(want.at("shards"));
      if (shards.size() != got->shards.size()) {
        d << where << " shards: torchrec " << shards.size() << " != ours " << got->shards.size();
        return d.str();
      }
      for (std::size_t j = 0; j < shards.size(); ++j) {
        const Shard& s = got->shards[j];
        std::string sw = where + " shard " + std::to_string(j);
        if (shards[j].at("rank").get<int>() != s.rank.value_or(-1)) {
          d << sw << " rank: torchrec " << shards[j]["rank"].get<int>() << " != ours " << s.rank.value_or(-1);
          return d.str();
        }
        if (testing::shard_dims(shards[j].at("sizes")) != s.size) return sw + " sizes differ";
        if (testing::shard_dims(shards[j].at("offsets")) != s.offset) return sw + " offsets differ";
      }
    }
  }
  if (golden_tables != result.plan.size()) {
    d << "tables in plan: torchrec " << golden_tables << " != ours " << result.plan.size();
    return d.str();
  }
  auto loads = rank_loads(result.plan, topology.world_size);
  const auto& per_rank = golden.at("per_rank");
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    Storage want{per_rank[r]["hbm"].get<std::int64_t>(), per_rank[r]["ddr"].get<std::int64_t>()};
    if (want != loads.at(r).storage) {
      d << "per_rank " << r << " storage: torchrec (" << want.hbm << ", " << want.ddr << ") != ours ("
        << loads[r].storage.hbm << ", " << loads[r].storage.ddr << ")";
      return d.str();
    }
    std::string pd = perf_diff("per_rank " + std::to_string(r), per_rank[r].at("perf"), loads[r].perf);
    if (!pd.empty()) return pd;
  }
  double want_rating = golden.at("perf_rating").get<double>();
  if (!close_enough(want_rating, result.perf_rating)) {
    d << "perf_rating: torchrec " << want_rating << " != ours " << result.perf_rating;
    return d.str();
  }
  return "";
}

// The planner loop alone: torchrec's own options (golden) as the search space.
std::string compare_plan(const GoldenCase& c) {
  nlohmann::json golden = load_golden(c);
  PlanningInput input = load_case(c.case_path);
  Topology topology = topology_from_golden(golden.at("topology"));
  SearchSpace space(search_space_from_golden(c, golden, input.model));
  if (golden.contains("error") && golden["error"].value("type", "") != "PlannerError") {
    // The enumerator's own error (e.g. no kernel left): not the planner loop's.
    return space.empty() ? "" : "torchrec's enumerator failed, yet the golden has options";
  }
  auto reservation = make_storage_reservation(input.planner.storage_reservation);
  auto partitioner = make_partitioner(input.planner.partitioner);
  EmbeddingShardingPlanner planner(*reservation, make_proposers(input.planner), *partitioner,
                                   lookup_estimator(space.enumerated()));
  PlanResult result = planner.plan(topology, input.model, space);
  return compare_result(golden, result, topology);
}

// The whole job as `shardplan plan` runs it (our enumerator and estimators, then
// the loop), compared with torchrec's plan and its EmbeddingStats text.
std::string compare_end_to_end(const GoldenCase& c) {
  nlohmann::json golden = load_golden(c);
  PlanningInput input = load_case(c.case_path);
  PlanRun run = run_plan(input);
  if (golden.contains("error") && golden["error"].value("type", "") != "PlannerError") {
    if (!run.enumeration_error)
      return "torchrec's enumerator failed (" + golden["error"].value("type", "") + "), ours did not";
    return "";
  }
  if (run.enumeration_error) return "our enumerator failed: " + *run.enumeration_error;
  std::string diff = compare_result(golden, run.result, run.topology);
  if (!diff.empty() || !golden.contains("stats_text")) return diff;
  // The stats text, line by line; only the "ran for N s" figure is timing, so we
  // render with torchrec's own figure to compare the centred line whole.
  auto want = split_lines(golden.at("stats_text").get<std::string>());
  for (const auto& line : want)
    if (auto pos = line.find("ran for "); pos != std::string::npos) run.seconds = std::stod(line.substr(pos + 8));
  auto got = split_lines(render_stats_text(stats_report_of(run, input)));
  for (std::size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    std::string w = i < want.size() ? want[i] : "<no line>";
    std::string g = i < got.size() ? got[i] : "<no line>";
    if (w != g) return "stats line " + std::to_string(i + 1) + ":\n  torchrec: " + w + "\n  ours:     " + g;
  }
  return "";
}

TEST_CASE("shardplan plan (enumerator + planner + stats) matches torchrec end to end",
          "[planner][planner-parity][end-to-end]") {
  check_every_case(golden_cases(/*include_scale=*/true),
                   "end-to-end parity (plan, per-rank totals, counts, errors, stats text)", compare_end_to_end);
}

TEST_CASE("planner loop matches torchrec's plan on every golden case", "[planner][planner-parity]") {
  check_every_case(golden_cases(), "planner loop parity (golden options as the search space)", compare_plan);
}

}  // namespace
}  // namespace shardplan::testing
