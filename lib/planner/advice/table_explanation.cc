#include "planner/advice/table_explanation.h"

#include <algorithm>
#include <set>

#include "planner/advice/constraint_exclusions.h"

namespace shardplan {

void OptionVerdictRecorder::on_verdict(const Proposal& proposal, std::optional<double> rating) {
  for (const OptionId id : proposal) {
    Counts& c = counts_[id];
    ++c.proposals;
    if (!rating) continue;
    ++c.placed;
    if (!c.best_rating || *rating < *c.best_rating) c.best_rating = rating;
  }
}

OptionVerdictRecorder::Counts OptionVerdictRecorder::counts(OptionId id) const {
  auto it = counts_.find(id);
  return it == counts_.end() ? Counts{} : it->second;
}

std::vector<std::string> table_fqns(const std::vector<ShardingOption>& search_space) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& option : search_space)
    if (seen.insert(option.fqn()).second) out.push_back(option.fqn());
  return out;
}

namespace {

bool fits_somewhere(const ShardingOption& option, const Storage& largest_free) {
  for (const auto& shard : option.shards)
    if (!shard.storage.value_or(Storage{}).fits_in(largest_free)) return false;
  return true;
}

}  // namespace

TableExplanation explain_table(const ExplainedRun& run, const PlanningInput& input,
                               const OptionVerdictRecorder& recorder, const std::string& fqn) {
  TableExplanation out;
  out.fqn = fqn;
  if (run.result.reservation)
    for (const auto& device : run.result.reservation->reserved.devices) {
      out.largest_rank_free.hbm = std::max(out.largest_rank_free.hbm, device.storage.hbm);
      out.largest_rank_free.ddr = std::max(out.largest_rank_free.ddr, device.storage.ddr);
    }
  const ShardingOption* chosen = nullptr;
  if (run.planned) {
    out.plan_rating = run.result.perf_rating;
    for (const auto& option : run.result.plan)
      if (option.fqn() == fqn) chosen = &option;
  }
  bool chosen_seen = false;
  // Enumerated options only: those a proposer derives (offload_scaleup) are
  // variants of one of them, whose verdict covers them.
  const std::vector<ShardingOption>& enumerated = run.search_space.enumerated();
  for (OptionId id = 0; id < enumerated.size(); ++id) {
    const ShardingOption& option = enumerated[id];
    if (option.fqn() != fqn) continue;
    ExplainedOption e{
        option, OptionVerdict::kNeverProposed, {}, recorder.counts(id), !fits_somewhere(option, out.largest_rank_free)};
    // The plan holds the option (with its ranks) or, after offload_scaleup, a copy
    // with another cache load factor: the same sharding type and kernel.
    if (chosen && !chosen_seen && chosen->sharding_type == option.sharding_type &&
        chosen->compute_kernel == option.compute_kernel) {
      e.verdict = OptionVerdict::kChosen;
      chosen_seen = true;
      e.option = *chosen;
    } else if (e.counts.placed > 0) {
      e.verdict = OptionVerdict::kRatedWorse;
    } else if (e.exceeds_every_rank || e.counts.proposals > 0) {
      e.verdict = OptionVerdict::kDidNotFit;
    }
    out.options.push_back(std::move(e));
  }
  for (auto& excluded : options_excluded_by_constraints(input, run.topology, {fqn})) {
    ExplainedOption e{std::move(excluded.option), OptionVerdict::kExcluded, std::move(excluded.excluded_by), {}, false};
    e.exceeds_every_rank = !fits_somewhere(e.option, out.largest_rank_free);
    out.options.push_back(std::move(e));
  }
  return out;
}

}  // namespace shardplan
