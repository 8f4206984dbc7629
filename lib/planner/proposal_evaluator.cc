#include "planner/proposal_evaluator.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

namespace shardplan {

namespace {
// Proposals evaluated ahead per thread in one batch (see evaluate_ahead). The lanes
// wait for each other at the end of a batch, and one placed proposal of a big model
// costs as much as hundreds that fail the capacity check: with 16 a batch often
// held one or two placed proposals, and one lane waited for the other (5 000 tables
// x 1 024 ranks, 2 threads: 16.7-17.5 s wall with 16, 12.1-13.5 s with 128, same CPU).
constexpr std::size_t kProposalsAheadPerThread = 128;
}  // namespace

// Partitioning and rating are pure functions of the proposal, so they can run
// ahead of the loop. Which of two ways uses a second thread is decided here:
// walking later proposers ahead by copies, unless proposals are too big for it;
// else evaluating single proposals ahead on all threads when they are big enough.
ProposalEvaluator::ProposalEvaluator(const Partitioner& partitioner, const PerfModel& perf_model,
                                     const Topology& constraint, const SearchSpace& space,
                                     const std::vector<std::unique_ptr<Proposer>>& proposers,
                                     const ProposalKeyer& keyer, const Parallelism& parallelism,
                                     bool partition_every_proposal, const PlanStop* stop, bool rate_every_plan)
    : partitioner_(partitioner),
      partition_every_proposal_(partition_every_proposal),
      rate_every_plan_(rate_every_plan),
      stop_(stop),
      perf_model_(perf_model),
      constraint_(constraint),
      space_(space),
      keyer_(keyer),
      parallelism_(parallelism),
      workspace_(partitioner.make_workspace()),
      walks_(proposers.size()),
      first_walked_(proposers.size()) {
  for (const DeviceHardware& device : constraint.devices) capacity_ += device.storage;
  const std::size_t total_shards = space.total_shards();
  const std::size_t num_tables = space.tables().size();
  // Threads pay off per proposal only for big proposals (estimated as tables x
  // mean shards per option): for small ones handing out proposals costs more
  // than evaluating them.
  const std::size_t shards_per_proposal =
      space.enumerated().empty() ? 0 : total_shards * num_tables / space.enumerated().size();
  if (parallelism.threads() > 1 && shards_per_proposal < parallelism.walk_max_shards) {
    // The proposers after the first one that can be copied are walked (torchrec's
    // defaults: greedy runs here, greedy_sum is walked there).
    bool first_copyable_seen = false;
    for (std::size_t k = 0; k < proposers.size(); ++k) {
      std::unique_ptr<Proposer> copy = proposers[k]->clone();
      if (!copy) continue;
      if (!first_copyable_seen) {
        first_copyable_seen = true;
        continue;
      }
      walks_[k].proposer = std::move(copy);
      first_walked_ = std::min(first_walked_, k);
    }
  }
  if (first_walked_ < proposers.size()) {
    // A walk evaluates every proposal of its proposer, even those the loop's cache
    // will answer, and feeds back its own verdicts, which equal the loop's, so the
    // copy proposes exactly what the proposer will.
    walking_ = std::async(std::launch::async, [this] {
      std::unique_ptr<PartitionWorkspace> walk_workspace = partitioner_.make_workspace();
      for (auto& w : walks_)
        if (w.proposer) walk(w, walk_workspace.get());
    });
  } else if (shards_per_proposal >= parallelism.min_shards) {
    threads_ = parallelism.threads();
  }
}

ProposalEvaluator::~ProposalEvaluator() {
  if (walking_.valid()) walking_.wait();
}

void ProposalEvaluator::start_proposer(std::size_t index) {
  ahead_.clear();
  current_walk_ = nullptr;
  if (index < first_walked_) return;
  if (walking_.valid()) walking_.get();  // the walks are done before their proposers run
  if (walks_[index].proposer) current_walk_ = &walks_[index];
}

Evaluation ProposalEvaluator::evaluate_now(const Proposal& proposal, const Storage& needed,
                                           PartitionWorkspace* workspace, double keep_below) const {
  Evaluation out;
  // More storage than all devices together: no partitioner can place it, and the
  // loop needs only the verdict (the text of the last failure comes from plan()).
  if (!partition_every_proposal_ && !needed.fits_in(capacity_)) return out;
  // A placement that cannot be kept need not be finished once the partitioner proves
  // that the rest fits: the verdict (placeable) is all the loop reads of it.
  const double stop_above = rate_every_plan_ || !std::isfinite(keep_below)
                                ? std::numeric_limits<double>::infinity()
                                : perf_model_.load_above(space_, proposal.size(), keep_below);
  PartitionOutcome outcome = partitioner_.partition_above(space_, proposal, constraint_, workspace, stop_above);
  if (outcome.ok && !outcome.complete && !perf_model_.rated_above(space_, outcome, keep_below)) {
    // Not expected (load_above promises it); place it all then.
    if (workspace) workspace->recycle(std::move(outcome.placement));
    outcome = partitioner_.partition(space_, proposal, constraint_, workspace);
  }
  out.ok = outcome.ok;
  if (out.ok) {
    // Placements that cannot be kept (the most, at scale) need not be rated exactly:
    // every rating this one is compared with is keep_below or less.
    const bool rated_above = !rate_every_plan_ && perf_model_.rated_above(space_, outcome, keep_below);
    out.rating = rated_above ? outcome.largest_rank_load
                             : perf_model_.rate(space_, proposal, outcome.placement, constraint_.world_size);
    if (out.rating < keep_below)
      out.placement = std::move(outcome.placement);
    else if (workspace)
      workspace->recycle(std::move(outcome.placement));
  }
  return out;
}

void ProposalEvaluator::walk(Walk& w, PartitionWorkspace* workspace) const {
  Proposer& proposer = *w.proposer;
  double best = std::numeric_limits<double>::infinity();
  ProposalTally tally(keyer_, space_);
  for (auto proposal = proposer.propose(); proposal && !proposal->empty(); proposal = proposer.propose()) {
    // A stopped run uses no walk: the loop returns at its own next check.
    if (plan_stop_requested(stop_)) return;
    WalkedStep& step = w.steps.emplace_back();
    tally.update(*proposal);
    step.evaluation = evaluate_now(*proposal, tally.total_storage(), workspace, best);
    step.key = tally.key();
    if (step.evaluation.ok && step.evaluation.rating < best) {
      best = step.evaluation.rating;
      step.kept_placement = true;
    }
    if (step.evaluation.ok)
      proposer.feedback({true, &*proposal, step.evaluation.rating, &constraint_});
    else
      proposer.feedback({false, &*proposal, std::nullopt, &constraint_});
  }
}

void ProposalEvaluator::evaluate_ahead(const Proposer& proposer, double best_rating,
                                       const std::function<bool(const ProposalKey&)>& known) {
  // Enough work per thread start; each evaluated plan holds its placement until used.
  const std::size_t batch = kProposalsAheadPerThread * static_cast<std::size_t>(std::max(threads_, 1));
  proposer.lookahead(batch, steps_);
  std::vector<Ahead> todo;
  std::vector<ProposalKey> keys;
  ProposalTally tally(keyer_, space_);
  for (std::size_t step = 0; step < steps_.size(); ++step) {
    if (step == 0) {
      tally.update(steps_.first());
    } else {
      for (auto* c = steps_.changes_begin(step); c != steps_.changes_end(step); ++c) tally.change(c->table, c->option);
    }
    const ProposalKey& k = tally.key();
    if (known(k) || ahead_.count(k) || std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
    // A proposal needing more storage than all devices together is answered here:
    // most of a greedy proposer's are, and handing them to the lanes cost more.
    if (!partition_every_proposal_ && !tally.total_storage().fits_in(capacity_)) {
      ahead_.emplace(k, Ahead{step, tally.total_storage(), {}});
      continue;
    }
    keys.push_back(k);
    Ahead& ahead = todo.emplace_back();
    ahead.step = step;
    ahead.needed = tally.total_storage();
  }
  // One lane per thread, each with its own workspace and copy of the proposal, taking
  // the next proposal not yet taken (a lane that drew a placed proposal leaves the
  // cheap ones to the others). Each verdict goes to its proposal's slot: the order is
  // the proposer's. The best rating only falls, so a placement rated no better than
  // it is now will never be asked for.
  const std::size_t lanes = std::min(todo.size(), static_cast<std::size_t>(std::max(threads_, 1)));
  while (lanes_.size() < lanes) lanes_.push_back(Lane{partitioner_.make_workspace(), {}, 0});
  for (Lane& lane : lanes_) lane.step = SIZE_MAX;
  std::atomic<std::size_t> next_todo{0};
  parallelism_.parallel_for(lanes, threads_, [&](std::size_t l) {
    Lane& lane = lanes_[l];
    for (std::size_t i = next_todo.fetch_add(1); i < todo.size(); i = next_todo.fetch_add(1)) {
      // Taken in increasing order: the lane's copy only walks forward.
      if (lane.step == SIZE_MAX) {
        lane.proposal = steps_.first();
        lane.step = 0;
      }
      steps_.advance(lane.proposal, lane.step, todo[i].step);
      lane.step = todo[i].step;
      todo[i].evaluation = evaluate_now(lane.proposal, todo[i].needed, lane.workspace.get(), best_rating);
    }
  });
  for (std::size_t i = 0; i < todo.size(); ++i) ahead_.emplace(keys[i], std::move(todo[i]));
}

Evaluation ProposalEvaluator::evaluate(const Proposer& proposer, std::size_t step, const Proposal& proposal,
                                       const ProposalKey& key, const Storage& needed, double best_rating,
                                       const std::function<bool(const ProposalKey&)>& known) {
  if (current_walk_ && step < current_walk_->steps.size() && current_walk_->steps[step].key == key) {
    WalkedStep& done = current_walk_->steps[step];
    // A walk keeps the placement of each rating below all its earlier ones; every
    // earlier rating of the walk has been seen by the loop already, so only such a
    // rating can beat the best. Re-evaluating is a safety net.
    if (done.evaluation.ok && done.evaluation.rating < best_rating && !done.kept_placement)
      return evaluate_now(proposal, needed, workspace_.get(), best_rating);
    return std::move(done.evaluation);
  }
  auto found = ahead_.find(key);
  if (found == ahead_.end() && threads_ > 1) {
    evaluate_ahead(proposer, best_rating, known);
    found = ahead_.find(key);
  }
  // Keys are digests of the options (a false match needs a 128-bit collision), as in
  // the loop's own cache.
  if (found != ahead_.end()) {
    Evaluation out = std::move(found->second.evaluation);
    ahead_.erase(found);
    // Its placement was dropped when it was rated no better than the best then, which
    // is never above the best now; re-evaluating is a safety net.
    if (out.ok && out.rating < best_rating && out.placement.size() != proposal.size())
      return evaluate_now(proposal, needed, workspace_.get(), best_rating);
    return out;
  }
  return evaluate_now(proposal, needed, workspace_.get(), best_rating);
}

std::string ProposalEvaluator::describe() const {
  if (first_walked_ < walks_.size()) return "2 threads, proposers walked ahead";
  return fmt::format("{} threads", threads_);
}

}  // namespace shardplan
