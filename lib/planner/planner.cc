#include "planner/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "common/units.h"
#include "planner/parallel.h"
#include "planner/proposers/proposal_key.h"
#include "planner/proposers/proposer_util.h"

namespace shardplan {

namespace {

// torchrec's MAX_SIZE, the starting "lowest storage" and "best rating".
constexpr std::int64_t kMaxSize = std::numeric_limits<std::int64_t>::max();

struct CachedVerdict {
  bool partitionable = false;
  std::optional<double> perf_rating;
};

// A proposal's verdict, evaluated away from the loop.
struct Evaluated {
  Proposal proposal;
  PartitionOutcome outcome;
  double rating = 0;
};

// One proposal of a walk ahead: its key and verdict, and its placement when the
// rating was below every earlier rating of the walk (no other can be chosen).
struct WalkedStep {
  ProposalKey key;
  bool ok = false;
  double rating = 0;
  bool kept_placement = false;
  Placement placement;
};

// A copy of a proposer and what it proposed, step by step.
struct WalkedAhead {
  std::unique_ptr<Proposer> proposer;
  std::vector<WalkedStep> steps;
};

// Runs walk.proposer to its end, evaluating and feeding back every proposal.
template <typename Evaluate>
void walk_ahead(WalkedAhead& walk, ProposalKeyer& keyer, const Evaluate& evaluate, const Topology& constraint) {
  Proposer& proposer = *walk.proposer;
  double best = std::numeric_limits<double>::infinity();
  for (auto proposal = proposer.propose(); proposal && !proposal->empty(); proposal = proposer.propose()) {
    Evaluated evaluated;
    evaluate(*proposal, evaluated);
    WalkedStep& step = walk.steps.emplace_back();
    step.key = keyer.key(*proposal);
    step.ok = evaluated.outcome.ok;
    step.rating = evaluated.rating;
    if (step.ok && step.rating < best) {
      best = step.rating;
      step.kept_placement = true;
      step.placement = std::move(evaluated.outcome.placement);
    }
    if (step.ok)
      proposer.feedback({true, &*proposal, step.rating, &constraint});
    else
      proposer.feedback({false, &*proposal, std::nullopt, &constraint});
  }
}

// Total storage of a proposal, with per-option totals precomputed for the search space.
class StorageTotals {
 public:
  explicit StorageTotals(const std::vector<ShardingOption>& space) : space_(space) {
    totals_.reserve(space.size());
    for (const auto& option : space) totals_.push_back(option.total_storage());
  }
  Storage of(const Proposal& proposal) const {
    Storage total;
    const ShardingOption* begin = space_.data();
    for (const auto* option : proposal) {
      if (option >= begin && option < begin + space_.size())
        total += totals_[static_cast<std::size_t>(option - begin)];
      else
        total += option->total_storage();
    }
    return total;
  }

 private:
  const std::vector<ShardingOption>& space_;
  std::vector<Storage> totals_;
};

std::string storage_text(const Storage& s) {
  return fmt::format("hbm {}, ddr {}", format_bytes(static_cast<double>(s.hbm)),
                     format_bytes(static_cast<double>(s.ddr)));
}

void describe_shortfall(PlanFailure& failure, const Topology& reserved,
                        const std::vector<ShardingOption>& search_space) {
  for (const auto& device : reserved.devices) {
    failure.global_available += device.storage;
    failure.largest_rank_free.hbm = std::max(failure.largest_rank_free.hbm, device.storage.hbm);
    failure.largest_rank_free.ddr = std::max(failure.largest_rank_free.ddr, device.storage.ddr);
  }
  for (const auto& options : proposer_util::group_by_fqn(search_space)) {
    bool any_fits = false;
    const ShardingOption* smallest = nullptr;
    for (const auto* option : options) {
      bool fits = true;
      for (const auto& shard : option->shards)
        fits = fits && shard.storage.value_or(Storage{}).fits_in(failure.largest_rank_free);
      any_fits = any_fits || fits;
      if (!smallest || option->total_storage() < smallest->total_storage()) smallest = option;
    }
    if (any_fits || !smallest) continue;
    TableShortfall t{smallest->fqn(), smallest->total_storage(), {}};
    for (const auto& shard : smallest->shards) t.largest_shard = std::max(t.largest_shard, shard.storage.value_or(Storage{}));
    failure.tables.push_back(std::move(t));
  }
}

std::string failure_message(const PlanFailure& f, int num_proposals) {
  std::string kind = f.error_type == PlannerErrorType::kInsufficientStorage
                         ? "insufficient storage"
                         : "strict constraints";
  std::string msg = fmt::format(
      "no sharding plan found ({}): evaluated {} proposals; storage available for the tables: {}; "
      "smallest proposal needs {}; largest free rank: {}",
      kind, num_proposals, storage_text(f.global_available), storage_text(f.lowest_storage),
      storage_text(f.largest_rank_free));
  for (const auto& t : f.tables)
    msg += fmt::format("; {} needs {} in its smallest option, with a shard of {}", t.fqn,
                       storage_text(t.smallest_option), storage_text(t.largest_shard));
  if (!f.last_partition_error.empty()) msg += "; last partitioner error: " + f.last_partition_error;
  return msg;
}

}  // namespace

EmbeddingShardingPlanner::EmbeddingShardingPlanner(const StorageReservation& reservation,
                                                   std::vector<std::unique_ptr<Proposer>> proposers,
                                                   Partitioner& partitioner, OptionEstimator estimator)
    : reservation_(reservation),
      proposers_(std::move(proposers)),
      partitioner_(partitioner),
      estimator_(std::move(estimator)) {}

PlanResult EmbeddingShardingPlanner::plan(const Topology& topology, const ModelConfig& model,
                                          const std::vector<ShardingOption>& search_space) {
  PlanResult result;
  ReservationOutcome reserved = reservation_.reserve(topology, model);
  if (!reserved.ok) {
    PlanFailure f;
    f.error_type = reserved.error_type;
    f.stage = "reservation";
    f.message = reserved.message;
    result.failure = std::move(f);
    return result;
  }
  result.reservation = reserved.result;
  result.phases.mark("storage reservation");
  const Topology& constraint = result.reservation->reserved;
  // torchrec returns an empty plan when nothing is shardable.
  if (search_space.empty()) return result;

  std::size_t total_shards = 0;
  for (const auto& option : search_space) total_shards += option.shards.size();
  const std::size_t num_tables = proposer_util::group_by_fqn(search_space).size();

  // Loading only reads the search space and each proposer keeps its own state,
  // so the proposers load, and the partitioner and perf model prepare, side by
  // side when the model is big enough to pay for it (the rule enumeration uses).
  // torchrec stops at the first proposer that fails to load: its error is the
  // one reported, whatever the thread count.
  const OptionEstimator* estimator = estimator_ ? &estimator_ : nullptr;
  std::vector<std::optional<std::string>> load_errors(proposers_.size());
  const bool big_model = num_tables >= kParallelMinTables || total_shards >= planner_parallel_min_shards();
  parallel_for(proposers_.size() + 2, big_model ? planner_threads() : 1, [&](std::size_t task) {
    if (task < proposers_.size())
      load_errors[task] = proposers_[task]->load(search_space, estimator);
    else if (task == proposers_.size())
      perf_model_.prepare(search_space);
    else
      partitioner_.prepare(search_space);
  });
  for (auto& error : load_errors) {
    if (!error) continue;
    PlanFailure f;
    f.stage = "proposer";
    f.message = *error;
    result.failure = std::move(f);
    return result;
  }

  ProposalKeyer keyer(search_space);
  StorageTotals storage_totals(search_space);
  std::unordered_map<ProposalKey, CachedVerdict, ProposalKeyHash> cache;
  Storage lowest{kMaxSize, kMaxSize};
  double best_rating = static_cast<double>(kMaxSize);
  std::optional<Proposal> best_proposal;
  Placement best_placement;
  std::string last_error;
  std::optional<Proposal> last_failed;
  const int world_size = constraint.world_size;
  result.phases.mark("proposer and partitioner set-up");

  // Partitioning and rating are pure functions of the proposal, so proposals a
  // proposer will surely make next are evaluated ahead on all threads; the loop
  // below still counts, caches, keeps the best and gives feedback one proposal at
  // a time in proposal order, so the result does not depend on the thread count.
  auto evaluate = [&](const Proposal& proposal, Evaluated& out) {
    out.outcome = partitioner_.partition(proposal, constraint, FailureDetail::kVerdictOnly);
    if (out.outcome.ok)
      out.rating = perf_model_.rate(proposal, out.outcome.placement, world_size);
    else
      out.outcome.placement = {};  // only the message of a failure is read
  };
  // Threads pay off per proposal only for big proposals (estimated as tables x
  // mean shards per option): for small ones handing out proposals costs more
  // than evaluating them.
  const std::size_t shards_per_proposal = total_shards * num_tables / search_space.size();
  // Which of the two ways to use a second thread (below) is decided here: walking
  // proposers ahead unless proposals are too big for it, else evaluating single
  // proposals ahead when they are big enough.
  std::vector<WalkedAhead> walks(proposers_.size());
  std::size_t first_walked = proposers_.size();
  if (planner_threads() > 1 && shards_per_proposal < planner_walk_max_shards()) {
    bool first_copyable_seen = false;
    for (std::size_t k = 0; k < proposers_.size(); ++k) {
      std::unique_ptr<Proposer> copy = proposers_[k]->clone();
      if (!copy) continue;
      if (!first_copyable_seen) {
        first_copyable_seen = true;
        continue;
      }
      walks[k].proposer = std::move(copy);
      first_walked = std::min(first_walked, k);
    }
  }
  const bool walking = first_walked < proposers_.size();
  const int threads = !walking && shards_per_proposal >= planner_parallel_min_shards() ? planner_threads() : 1;
  // Enough work per thread start; each evaluated plan holds its placement until used.
  const std::size_t batch = 16 * static_cast<std::size_t>(std::max(threads, 1));
  std::unordered_map<ProposalKey, Evaluated, ProposalKeyHash> ahead;
  auto evaluate_ahead = [&](const Proposer& proposer) {
    std::vector<Evaluated> todo;
    std::vector<ProposalKey> keys;
    for (Proposal& next : proposer.lookahead(batch)) {
      ProposalKey k = keyer.key(next);
      if (cache.count(k) || ahead.count(k) || std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
      keys.push_back(k);
      todo.push_back(Evaluated{std::move(next), {}, 0});
    }
    parallel_for(todo.size(), threads, [&](std::size_t i) { evaluate(todo[i].proposal, todo[i]); });
    for (std::size_t i = 0; i < todo.size(); ++i) ahead.emplace(keys[i], std::move(todo[i]));
  };

  // torchrec's loop over one proposer. `walked`, when given, holds the verdicts
  // of a copy of this proposer walked ahead on another thread (see below).
  auto run_proposer = [&](Proposer& proposer, WalkedAhead* walked) {
    ahead.clear();
    std::size_t step = 0;
    // torchrec's `while proposal:` also stops on an empty proposal.
    for (auto proposal = proposer.propose(); proposal && !proposal->empty(); proposal = proposer.propose(), ++step) {
      ProposalKey key = keyer.key(*proposal);
      if (auto it = cache.find(key); it != cache.end()) {
        proposer.feedback({it->second.partitionable, &*proposal, it->second.perf_rating, &constraint});
        continue;
      }
      ++result.num_proposals;
      Evaluated evaluated;
      if (walked && step < walked->steps.size() && walked->steps[step].key == key) {
        WalkedStep& done = walked->steps[step];
        evaluated.outcome.ok = done.ok;
        evaluated.rating = done.rating;
        evaluated.outcome.placement = std::move(done.placement);
        // A walk keeps the placement of each rating below all its earlier ones;
        // every earlier rating of the walk has been seen here already, so only
        // such a rating can beat the best. Re-evaluating is a safety net.
        if (done.ok && done.rating < best_rating && !done.kept_placement) evaluate(*proposal, evaluated);
      } else {
        auto found = ahead.find(key);
        if (found == ahead.end() && threads > 1) {
          evaluate_ahead(proposer);
          found = ahead.find(key);
        }
        if (found != ahead.end() && found->second.proposal == *proposal) {
          evaluated = std::move(found->second);
          ahead.erase(found);
        } else {
          evaluate(*proposal, evaluated);
        }
      }
      PartitionOutcome& outcome = evaluated.outcome;
      if (outcome.ok) {
        ++result.num_plans;
        const double rating = evaluated.rating;
        // Strictly better only: the earliest proposal wins a tie (torchrec).
        if (rating < best_rating) {
          best_rating = rating;
          best_proposal = *proposal;
          best_placement = std::move(outcome.placement);
        }
        cache.emplace(key, CachedVerdict{true, rating});
        proposer.feedback({true, &*proposal, rating, &constraint});
      } else {
        // torchrec compares whole-proposal storage as (hbm, ddr) tuples.
        Storage current = storage_totals.of(*proposal);
        if (current < lowest) lowest = current;
        cache.emplace(key, CachedVerdict{false, std::nullopt});
        proposer.feedback({false, &*proposal, std::nullopt, &constraint});
        // Moved, not copied: most proposals fail, and the next one is a new vector.
        last_failed = std::move(*proposal);
      }
    }
  };

  // Walking ahead: the proposers after the first one that can be copied are
  // walked by copies on a second thread while this thread runs the proposers up
  // to that first one (torchrec's defaults: greedy here, greedy_sum there). A walk
  // evaluates every proposal of its proposer, even those the cache will answer,
  // and feeds back its own verdicts, which equal the loop's, so the copy proposes
  // exactly what the proposer will. The loop then runs those proposers in order
  // taking verdicts from the walks: counts, cache, feedback and the chosen plan
  // are the serial ones, for any thread count.
  if (walking) {
    parallel_for(2, 2, [&](std::size_t task) {
      if (task == 0) {
        for (std::size_t k = 0; k < first_walked; ++k) run_proposer(*proposers_[k], nullptr);
      } else {
        ProposalKeyer walk_keyer(search_space);
        for (auto& walk : walks)
          if (walk.proposer) walk_ahead(walk, walk_keyer, evaluate, constraint);
      }
    });
    for (std::size_t k = first_walked; k < proposers_.size(); ++k)
      run_proposer(*proposers_[k], walks[k].proposer ? &walks[k] : nullptr);
  } else {
    for (auto& proposer : proposers_) run_proposer(*proposer, nullptr);
  }

  result.phases.mark(fmt::format("proposal loop ({} proposals, {})", result.num_proposals,
                                 walking ? "2 threads, proposers walked ahead" : fmt::format("{} threads", threads)));
  if (best_proposal) {
    result.perf_rating = best_rating;
    result.plan.reserve(best_proposal->size());
    for (std::size_t i = 0; i < best_proposal->size(); ++i) {
      ShardingOption option = *(*best_proposal)[i];
      for (std::size_t j = 0; j < option.shards.size(); ++j) option.shards[j].rank = best_placement.rank(i, j);
      result.plan.push_back(std::move(option));
    }
    return result;
  }

  // torchrec logs its stats for the last failed proposal, every shard at rank -1,
  // and reports its partitioner error: the only failure whose text is needed.
  if (last_failed) {
    last_error = partitioner_.partition(*last_failed, constraint, FailureDetail::kMessage).message;
    for (const ShardingOption* option : *last_failed) {
      ShardingOption copy = *option;
      for (auto& shard : copy.shards) shard.rank = -1;
      result.last_proposal.push_back(std::move(copy));
    }
  }
  PlanFailure f;
  f.stage = "plan";
  f.lowest_storage = lowest;
  f.last_partition_error = last_error;
  describe_shortfall(f, constraint, search_space);
  f.error_type = lowest.fits_in(f.global_available) ? PlannerErrorType::kStrictConstraints
                                                    : PlannerErrorType::kInsufficientStorage;
  f.message = failure_message(f, result.num_proposals);
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
