// Parity of the partitioners with torchrec: for every reference case, torchrec's
// chosen proposal (the golden plan's options) is partitioned again on the golden
// reserved topology and must land every shard on the same rank.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config/loader.h"
#include "planner/enumerator.h"
#include "planner/partitioners/greedy/placement_loads.h"
#include "planner/partitioners/partitioner_factory.h"
#include "planner_output/partition_failure_text.h"
#include "support/golden.h"

namespace shardplan {
namespace {

using nlohmann::json;

// The case's partitioner options, from the loader; falls back to reading the case
// JSON directly if the loader rejects the file (it is not this test's subject).
PartitionerOptions partitioner_options(const testing::GoldenCase& c) {
  try {
    return load_case(c.case_path).planner.partitioner;
  } catch (const std::exception& e) {
    WARN(c.name << ": load_case failed (" << e.what() << "); reading planner.partitioner directly");
  }
  std::ifstream in(c.case_path);
  const json doc = json::parse(in);
  PartitionerOptions options;
  if (!doc.contains("planner") || !doc.at("planner").contains("partitioner")) return options;
  const json& p = doc.at("planner").at("partitioner");
  if (p.contains("type")) options.type = parse_name(kPartitionerNames, p.at("type").get<std::string>()).value();
  if (p.contains("sort_by"))
    options.sort_by = parse_name(kGreedySortByNames, p.at("sort_by").get<std::string>()).value();
  options.balance_modules = p.value("balance_modules", options.balance_modules);
  options.max_search_count = p.value("max_search_count", options.max_search_count);
  options.tolerance = p.value("tolerance", options.tolerance);
  return options;
}

// The golden topology with per-rank capacities replaced by the golden `reserved`.
Topology reserved_topology(const json& golden) {
  Topology topology;
  const json& t = golden.at("topology");
  topology.world_size = t.at("world_size").get<int>();
  topology.local_world_size = t.at("local_world_size").get<int>();
  const json& reserved = golden.at("reserved");
  for (std::size_t r = 0; r < reserved.size(); ++r) {
    DeviceHardware device;
    device.rank = static_cast<int>(r);
    device.storage = {reserved[r].at("hbm").get<std::int64_t>(), reserved[r].at("ddr").get<std::int64_t>()};
    topology.devices.push_back(device);
  }
  return topology;
}

// torchrec's chosen proposal: per table (in enumeration order of first appearance,
// which is the order every torchrec proposer hands options over) the option with
// the plan's (fqn, sharding_type, compute_kernel). Where several options share that
// key (cache load factors), the one with the plan's total storage.
struct ChosenProposal {
  std::vector<ShardingOption> options;
  std::vector<json> plan_shards;  // golden plan shards per option (expanded)
  std::vector<std::string> notes;
};

ChosenProposal chosen_proposal(const json& golden, const json& options) {
  ChosenProposal out;
  std::map<std::string, json> plan_by_fqn;
  for (const auto& [path, tables] : golden.at("plan").items())
    for (const auto& [table, entry] : tables.items()) plan_by_fqn[path + "." + table] = entry;
  std::vector<std::string> fqn_order;
  for (const json& o : options) {
    const std::string fqn = o.at("fqn").get<std::string>();
    if (std::find(fqn_order.begin(), fqn_order.end(), fqn) == fqn_order.end()) fqn_order.push_back(fqn);
  }
  for (const std::string& fqn : fqn_order) {
    auto it = plan_by_fqn.find(fqn);
    if (it == plan_by_fqn.end()) continue;
    const json& entry = it->second;
    const json* match = nullptr;
    for (const json& o : options) {
      if (o.at("fqn") != fqn || o.at("sharding_type") != entry.at("sharding_type") ||
          o.at("compute_kernel") != entry.at("compute_kernel"))
        continue;
      if (!match || o.at("total_storage") == entry.at("total_storage")) match = &o;
    }
    if (!match) {
      out.notes.push_back("no option for " + fqn);
      continue;
    }
    ShardingOption option = testing::option_from_golden(*match);
    const json shards = testing::expand_shards(entry.at("shards"));
    if (match->at("total_storage") != entry.at("total_storage")) {
      // The proposer changed the option (e.g. a scaled-up cache): torchrec
      // partitioned the plan's shards, so use their estimates.
      out.notes.push_back(fqn + ": option estimates differ from the plan's; using the plan's");
      ShardList from_plan;
      for (std::size_t j = 0; j < option.shards.size(); ++j) {
        Shard shard = option.shards[j];
        if (j < shards.size()) {
          const json& s = shards[j];
          shard.storage =
              Storage{s.at("storage").at("hbm").get<std::int64_t>(), s.at("storage").at("ddr").get<std::int64_t>()};
          const json& p = s.at("perf");
          shard.perf = Perf{p.at("fwd_compute").get<double>(), p.at("fwd_comms").get<double>(),
                            p.at("bwd_compute").get<double>(), p.at("bwd_comms").get<double>(),
                            p.at("prefetch_compute").get<double>()};
        }
        from_plan.push_back(shard);
      }
      option.shards = std::move(from_plan);
    }
    option.shards.with_ranks([](std::size_t) { return std::optional<int>{}; });
    out.options.push_back(std::move(option));
    out.plan_shards.push_back(shards);
  }
  return out;
}

// A search space of copies of `options` and the proposal of all of them, in order.
struct SpaceAndProposal {
  SearchSpace space;
  Proposal proposal;
};
SpaceAndProposal proposal_over(const std::vector<ShardingOption>& options) {
  SpaceAndProposal out{SearchSpace(options), {}};
  for (std::size_t i = 0; i < options.size(); ++i) out.proposal.push_back(static_cast<OptionId>(i));
  return out;
}

// The first difference between our placement and the golden plan, or "".
std::string compare_with_golden(const ChosenProposal& chosen, const SearchSpace& space, const Proposal& proposal,
                                const Placement& placement, const json& golden, int world_size) {
  std::ostringstream diff;
  for (std::size_t i = 0; i < chosen.options.size(); ++i) {
    const json& shards = chosen.plan_shards[i];
    if (shards.size() != chosen.options[i].shards.size()) {
      diff << "table " << chosen.options[i].fqn() << ": " << chosen.options[i].shards.size() << " shards vs golden "
           << shards.size();
      return diff.str();
    }
    for (std::size_t j = 0; j < shards.size(); ++j) {
      const int want = shards[j].at("rank").get<int>();
      if (placement.rank(i, j) != want) {
        diff << "table " << chosen.options[i].fqn() << " (" << to_string(chosen.options[i].sharding_type) << ") shard "
             << j << ": rank " << placement.rank(i, j) << " vs golden " << want;
        return diff.str();
      }
    }
  }
  const auto loads = rank_loads(space, proposal, placement, world_size);
  const json& per_rank = golden.at("per_rank");
  for (int r = 0; r < world_size; ++r) {
    const json& want = per_rank.at(static_cast<std::size_t>(r));
    const RankLoad& got = loads[static_cast<std::size_t>(r)];
    if (got.storage.hbm != want.at("hbm").get<std::int64_t>() ||
        got.storage.ddr != want.at("ddr").get<std::int64_t>()) {
      diff << "rank " << r << " storage hbm/ddr " << got.storage.hbm << "/" << got.storage.ddr << " vs golden "
           << want.at("hbm") << "/" << want.at("ddr");
      return diff.str();
    }
    const double want_perf = want.at("perf").at("total").get<double>();
    if (!testing::close_enough(got.perf.total(), want_perf)) {
      diff << "rank " << r << " perf total " << got.perf.total() << " vs golden " << want_perf;
      return diff.str();
    }
  }
  return "";
}

// The scale goldens carry no options: the plan's own shards (with estimates) are
// the proposal, in the plan's (enumeration) order, which needs an order-keeping
// parse since nlohmann::json sorts keys.
ChosenProposal proposal_from_plan(const testing::GoldenCase& c) {
  std::ifstream in(c.golden_path);
  const auto ordered = nlohmann::ordered_json::parse(in);
  ChosenProposal out;
  for (const auto& [path, tables] : ordered.at("plan").items()) {
    for (const auto& [table, ordered_entry] : tables.items()) {
      const json entry = json::parse(ordered_entry.dump());
      ShardingOption option;
      option.name = table;
      option.path = path;
      option.sharding_type = *parse_name(kShardingTypeNames, entry.at("sharding_type").get<std::string>());
      option.compute_kernel = *parse_name(kComputeKernelNames, entry.at("compute_kernel").get<std::string>());
      option.partition_by = partition_by_of(option.sharding_type);
      const json shards = testing::expand_shards(entry.at("shards"));
      for (const json& s : shards) {
        Shard shard;
        shard.size = testing::shard_dims(s.at("sizes"));
        shard.offset = testing::shard_dims(s.at("offsets"));
        shard.storage =
            Storage{s.at("storage").at("hbm").get<std::int64_t>(), s.at("storage").at("ddr").get<std::int64_t>()};
        const json& p = s.at("perf");
        shard.perf =
            Perf{p.at("fwd_compute").get<double>(), p.at("fwd_comms").get<double>(), p.at("bwd_compute").get<double>(),
                 p.at("bwd_comms").get<double>(), p.at("prefetch_compute").get<double>()};
        option.shards.push_back(std::move(shard));
      }
      out.options.push_back(std::move(option));
      out.plan_shards.push_back(shards);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("partitioners place torchrec's chosen proposal like torchrec", "[partitioner][parity]") {
  int matched = 0, compared = 0;
  std::vector<std::string> failures;
  for (const auto& c : testing::golden_cases()) {
    const json golden = testing::load_golden(c);
    if (!golden.contains("plan") || golden.at("reserved").is_null()) continue;
    ++compared;
    const json options = testing::golden_options(c, golden);
    const ChosenProposal chosen = chosen_proposal(golden, options);
    for (const auto& note : chosen.notes) WARN(c.name << ": " << note);
    const auto [space, proposal] = proposal_over(chosen.options);
    const Topology constraint = reserved_topology(golden);
    const PartitionerOptions partitioner_config = partitioner_options(c);
    const auto partitioner = make_partitioner(partitioner_config);
    const PartitionOutcome outcome = partitioner->partition(space, proposal, constraint);
    std::string difference;
    if (!outcome.ok)
      difference = "partition failed: " + partition_failure_text(outcome.failure, space);
    else
      difference = compare_with_golden(chosen, space, proposal, outcome.placement, golden, constraint.world_size);
    if (difference.empty()) {
      ++matched;
    } else {
      failures.push_back(c.name + " [" + std::string(to_string(partitioner_config.type)) + "]: " + difference);
    }
  }
  for (const auto& failure : failures) FAIL_CHECK(failure);
  WARN("partitioner parity: " << matched << "/" << compared << " cases match");
  CHECK(matched == compared);
}

TEST_CASE("partitioners place the scale goldens' plans like torchrec", "[partitioner][parity]") {
  int matched = 0, compared = 0;
  for (const auto& c : testing::golden_cases(/*include_scale=*/true)) {
    if (c.case_path.find("/scale/") == std::string::npos) continue;
    const json golden = testing::load_golden(c);
    if (!golden.contains("plan")) continue;
    ++compared;
    const ChosenProposal chosen = proposal_from_plan(c);
    const auto [space, proposal] = proposal_over(chosen.options);
    const Topology constraint = reserved_topology(golden);
    const PartitionerOptions partitioner_config = partitioner_options(c);
    const PartitionOutcome outcome = make_partitioner(partitioner_config)->partition(space, proposal, constraint);
    std::string difference =
        outcome.ok ? compare_with_golden(chosen, space, proposal, outcome.placement, golden, constraint.world_size)
                   : "partition failed: " + partition_failure_text(outcome.failure, space);
    if (difference.empty())
      ++matched;
    else
      FAIL_CHECK(c.name << " [" << to_string(partitioner_config.type) << "]: " << difference);
  }
  WARN("partitioner parity (scale): " << matched << "/" << compared << " cases match");
  if (!testing::parity_skipped()) CHECK(compared > 0);
}

TEST_CASE("a proposal that cannot fit fails with torchrec's message", "[partitioner][parity]") {
  // The golden error ends with "Last planner error: \n\t<partitioner message>\n".
  auto last_error = [](const json& golden) {
    const std::string message = golden.at("error").at("message").get<std::string>();
    const std::string marker = "Last planner error: \n\t";
    const auto at = message.find(marker);
    REQUIRE(at != std::string::npos);
    std::string tail = message.substr(at + marker.size());
    if (!tail.empty() && tail.back() == '\n') tail.pop_back();
    return tail;
  };
  for (const auto& c : testing::golden_cases()) {
    if (c.name != "infeasible-insufficient-storage" && c.name != "infeasible-strict-constraints") continue;
    INFO("case " << c.name);
    const json golden = testing::load_golden(c);
    const json options = testing::golden_options(c, golden);
    const Topology constraint = reserved_topology(golden);
    const std::string expected = last_error(golden);
    const auto partitioner = make_partitioner(partitioner_options(c));

    // Every option of the infeasible table fails on its own.
    const std::string culprit = c.name == "infeasible-insufficient-storage" ? "ebc.huge" : "ebc.big_tw";
    std::vector<ShardingOption> singles;
    for (const json& o : options)
      if (o.at("fqn") == culprit) singles.push_back(testing::option_from_golden(o));
    REQUIRE(!singles.empty());
    for (const auto& option : singles) {
      INFO("option " << to_string(option.sharding_type) << "/" << to_string(option.compute_kernel));
      const auto [space, proposal] = proposal_over({option});
      const PartitionOutcome outcome = partitioner->partition(space, proposal, constraint);
      CHECK_FALSE(outcome.ok);
      CHECK(outcome.error_type == PlannerErrorType::kPartition);
    }

    // torchrec's last proposal (from the uniform proposer: one sharding type for
    // all tables) reproduces the golden's last error text exactly.
    const std::string sharding_type = c.name == "infeasible-insufficient-storage" ? "data_parallel" : "table_wise";
    std::vector<ShardingOption> last;
    std::map<std::string, bool> taken;
    for (const json& o : options) {
      const std::string fqn = o.at("fqn").get<std::string>();
      if (o.at("sharding_type") != sharding_type || taken[fqn]) continue;
      // The uniform proposer takes the best-scored option per table; only the
      // failing table's option matters for the message (it is placed first).
      taken[fqn] = true;
      last.push_back(testing::option_from_golden(o));
    }
    const auto [space, proposal] = proposal_over(last);
    const PartitionOutcome outcome = partitioner->partition(space, proposal, constraint);
    REQUIRE_FALSE(outcome.ok);
    CHECK(partition_failure_text(outcome.failure, space) == expected);
  }
}

}  // namespace shardplan
