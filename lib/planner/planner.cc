#include "planner/planner.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include <fmt/format.h>

#include "planner/proposal_evaluator.h"
#include "planner/proposers/proposal_key.h"

namespace shardplan {

namespace {

// torchrec's MAX_SIZE, the starting "lowest storage" and "best rating".
constexpr std::int64_t kMaxSize = std::numeric_limits<std::int64_t>::max();

// torchrec's proposal cache entry: (partitionable, plan, perf_rating).
struct CachedVerdict {
  bool partitionable = false;
  std::optional<double> perf_rating;
};

// The tables none of whose options fits the largest free rank, and the reserved
// capacities the failure is measured against.
void describe_shortfall(PlanFailure& failure, const Topology& reserved, const SearchSpace& space) {
  for (const auto& device : reserved.devices) {
    failure.global_available += device.storage;
    failure.largest_rank_free.hbm = std::max(failure.largest_rank_free.hbm, device.storage.hbm);
    failure.largest_rank_free.ddr = std::max(failure.largest_rank_free.ddr, device.storage.ddr);
  }
  for (const auto& ids : space.tables()) {
    bool any_fits = false;
    const ShardingOption* smallest = nullptr;
    for (OptionId id : ids) {
      const ShardingOption* option = &space[id];
      bool fits = true;
      for (const auto& shard : option->shards)
        fits = fits && shard.storage.value_or(Storage{}).fits_in(failure.largest_rank_free);
      any_fits = any_fits || fits;
      if (!smallest || option->total_storage() < smallest->total_storage()) smallest = option;
    }
    if (any_fits || !smallest) continue;
    TableShortfall t;
    t.fqn = smallest->fqn();
    t.smallest_option = smallest->total_storage();
    for (const auto& shard : smallest->shards)
      t.largest_shard = std::max(t.largest_shard, shard.storage.value_or(Storage{}));
    failure.tables.push_back(std::move(t));
  }
}

PlanFailure stage_failure(FailureStage stage, PlannerErrorType error_type, std::string reason) {
  PlanFailure f;
  f.stage = stage;
  f.error_type = error_type;
  f.stage_reason = std::move(reason);
  return f;
}

// `proposal`'s options with the shard ranks of `placement` (-1 for every shard
// without one: what torchrec hands EmbeddingStats for a failed proposal).
std::vector<ShardingOption> placed(const SearchSpace& space, const Proposal& proposal, const Placement* placement) {
  std::vector<ShardingOption> out;
  out.reserve(proposal.size());
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    ShardingOption& option = out.emplace_back(space[proposal[i]]);
    option.shards.with_ranks([&](std::size_t j) { return placement ? placement->rank(i, j) : -1; });
  }
  return out;
}

}  // namespace

EmbeddingShardingPlanner::EmbeddingShardingPlanner(const StorageReservation& reservation,
                                                   std::vector<std::unique_ptr<Proposer>> proposers,
                                                   Partitioner& partitioner, OptionEstimator estimator,
                                                   Parallelism parallelism)
    : reservation_(reservation),
      proposers_(std::move(proposers)),
      partitioner_(partitioner),
      estimator_(std::move(estimator)),
      parallelism_(parallelism) {}

std::optional<std::string> EmbeddingShardingPlanner::load_proposers(SearchSpace& space) {
  // torchrec stops at the first proposer that fails to load: its error is the one reported.
  const OptionEstimator* estimator = estimator_ ? &estimator_ : nullptr;
  for (auto& proposer : proposers_)
    if (auto error = proposer->load(space, estimator)) return error;
  return std::nullopt;
}

// torchrec's EmbeddingShardingPlanner.plan: reserve storage; then for each
// proposer, for each proposal not seen before: partition, rate, keep the best,
// feed the verdict back. The order of proposals, verdicts and feedback is the
// serial one whatever the evaluator runs ahead on other threads.
PlanResult EmbeddingShardingPlanner::plan(const Topology& topology, const ModelConfig& model, SearchSpace& space) {
  PlanResult result;
  if (progress_) progress_(PlanProgress{PlanStage::kPreparing, 0, proposers_.size(), 0, std::nullopt});
  ReservationOutcome reserved = reservation_.reserve(topology, model);
  if (!reserved.ok) {
    result.failure = stage_failure(FailureStage::kReservation, reserved.error_type, reserved.message);
    return result;
  }
  result.reservation = reserved.result;
  result.phases.mark("storage reservation");
  const Topology& constraint = result.reservation->reserved;
  if (space.empty()) return result;  // torchrec returns an empty plan when nothing is shardable
  if (auto error = load_proposers(space)) {
    result.failure = stage_failure(FailureStage::kProposer, PlannerErrorType::kOther, std::move(*error));
    return result;
  }
  result.phases.mark("proposer and partitioner set-up");

  const ProposalKeyer keyer(space);
  ProposalTally tally(keyer, space);  // key and total storage, updated per table that changed
  std::unordered_map<ProposalKey, CachedVerdict, ProposalKeyHash> cache;
  const auto known = [&cache](const ProposalKey& key) { return cache.count(key) > 0; };
  Storage lowest{kMaxSize, kMaxSize};
  double best_rating = static_cast<double>(kMaxSize);
  std::optional<Proposal> best_proposal;
  Placement best_placement;
  std::optional<Proposal> last_failed;
  // Ratings are read beyond "is it the best so far" only by an observer or a
  // proposer that looks at their values (greedy's threshold).
  const bool rate_every_plan = observer_ != nullptr || std::any_of(proposers_.begin(), proposers_.end(),
                                                                   [](const auto& p) { return p->reads_ratings(); });
  ProposalEvaluator evaluator(partitioner_, perf_model_, constraint, space, proposers_, keyer, parallelism_,
                              partition_every_proposal_, stop_, rate_every_plan);
  // A stopped search keeps nothing: its best so far is not the plan the search finds.
  const auto stopped = [&] {
    if (!plan_stop_requested(stop_)) return false;
    result = PlanResult{};
    result.reservation = reserved.result;
    result.stopped = true;
    return true;
  };

  for (std::size_t k = 0; k < proposers_.size(); ++k) {
    Proposer& proposer = *proposers_[k];
    evaluator.start_proposer(k);
    PlanProgress progress{PlanStage::kProposing, k, proposers_.size(), result.num_proposals, std::nullopt};
    if (progress_) progress_(progress);
    std::size_t step = 0;
    // One buffer for the whole walk: the proposer patches it from one proposal to the
    // next (proposals of thousands of tables differ in one).
    Proposal current;
    const Proposal* proposal = &current;
    // torchrec's `while proposal:` also stops on an empty proposal.
    for (bool more = proposer.propose_into(current, false); more && !current.empty();
         more = proposer.propose_into(current, true), ++step) {
      if (stopped()) return result;
      tally.update(*proposal);
      const ProposalKey key = tally.key();
      if (auto seen = cache.find(key); seen != cache.end()) {
        proposer.feedback({seen->second.partitionable, &*proposal, seen->second.perf_rating, &constraint});
        continue;
      }
      ++result.num_proposals;
      Evaluation verdict =
          evaluator.evaluate(proposer, step, *proposal, key, tally.total_storage(), best_rating, known);
      if (observer_)
        observer_->on_verdict(*proposal, verdict.ok ? std::optional<double>(verdict.rating) : std::nullopt);
      if (verdict.ok) {
        ++result.num_plans;
        // Strictly better only: the earliest proposal wins a tie (torchrec).
        if (verdict.rating < best_rating) {
          best_rating = verdict.rating;
          best_proposal = *proposal;
          best_placement = std::move(verdict.placement);
        }
        cache.emplace(key, CachedVerdict{true, verdict.rating});
        proposer.feedback({true, &*proposal, verdict.rating, &constraint});
      } else {
        // torchrec compares whole-proposal storage as (hbm, ddr) tuples.
        lowest = std::min(lowest, tally.total_storage());
        cache.emplace(key, CachedVerdict{false, std::nullopt});
        proposer.feedback({false, &*proposal, std::nullopt, &constraint});
        if (!best_proposal) last_failed = current;  // read only when no proposal is placed
      }
      if (progress_) {
        progress.proposals_tried = result.num_proposals;
        if (best_proposal) progress.best_perf = best_rating;
        progress_(progress);
      }
    }
  }
  result.phases.mark(fmt::format("proposal loop ({} proposals, {})", result.num_proposals, evaluator.describe()));

  if (best_proposal) {
    result.perf_rating = best_rating;
    result.plan = placed(space, *best_proposal, &best_placement);
    return result;
  }
  // torchrec logs its stats for the last failed proposal, every shard at rank -1,
  // and reports its partitioner error: the only failure whose text is needed.
  PlanFailure f;
  if (last_failed) {
    f.last_partition_failure = partitioner_.partition(space, *last_failed, constraint).failure;
    result.last_proposal = placed(space, *last_failed, nullptr);
  }
  f.lowest_storage = lowest;
  describe_shortfall(f, constraint, space);
  f.error_type = lowest.fits_in(f.global_available) ? PlannerErrorType::kStrictConstraints
                                                    : PlannerErrorType::kInsufficientStorage;
  result.failure = std::move(f);
  return result;
}

std::vector<std::unique_ptr<Proposer>> make_proposers(const PlannerOptions& options,
                                                      const ProposerOptions& proposer_options) {
  ProposerOptions resolved = proposer_options;
  if (!resolved.greedy_threshold) resolved.greedy_threshold = options.greedy_threshold;
  std::vector<std::unique_ptr<Proposer>> out;
  for (const ProposerKind kind : options.proposers) out.push_back(make_proposer(kind, resolved));
  return out;
}

}  // namespace shardplan
