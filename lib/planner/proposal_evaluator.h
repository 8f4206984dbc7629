// The partition-then-rate step of torchrec's plan loop, with the scheduling that
// does it ahead of the loop on other threads kept behind one class (as ninja keeps
// parallelism behind CommandRunner): the loop asks for one verdict at a time, in
// proposal order, and gets the verdict serial evaluation would give.
#pragma once

#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "planner/parallelism.h"
#include "planner/perf_model.h"
#include "planner/plan_stop.h"
#include "planner/proposal_steps.h"
#include "planner/proposers/proposal_key.h"
#include "planner/proposers/proposer.h"
#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// The verdict on one proposal: placed or not, its rating, and its placement when
// it may be the best (see ProposalEvaluator::evaluate).
struct Evaluation {
  bool ok = false;
  // When ok: the rating. Without rate_every_plan, a placement that cannot be the
  // best may carry the partitioner's own sum instead (PerfModel::rated_above): like
  // the rating, it is above every rating it is compared with.
  double rating = 0;
  Placement placement;
};

class ProposalEvaluator {
 public:
  // Evaluates proposals of `proposers` (loaded, none run yet) over `space` (which
  // no longer grows) on `constraint`.
  ProposalEvaluator(const Partitioner& partitioner, const PerfModel& perf_model, const Topology& constraint,
                    const SearchSpace& space, const std::vector<std::unique_ptr<Proposer>>& proposers,
                    const ProposalKeyer& keyer, const Parallelism& parallelism, bool partition_every_proposal = false,
                    const PlanStop* stop = nullptr, bool rate_every_plan = true);
  ~ProposalEvaluator();

  // Called before proposer `index` proposes.
  void start_proposer(std::size_t index);

  // The verdict on `proposal` (key `key`, total storage `needed`), the `step`-th proposal of the current
  // proposer (0-based, proposals the loop answered from its cache included). The
  // placement is there whenever the rating is below `best_rating`. `known(key)`
  // tells proposals the loop already has a verdict for (not evaluated ahead).
  Evaluation evaluate(const Proposer& proposer, std::size_t step, const Proposal& proposal, const ProposalKey& key,
                      const Storage& needed, double best_rating, const std::function<bool(const ProposalKey&)>& known);

  // How threads were used, for --timings: "2 threads, proposers walked ahead" or "N threads".
  std::string describe() const;

 private:
  // One proposal of a walk ahead: its key and verdict, and its placement when the
  // rating was below every earlier rating of the walk (no other can be chosen).
  struct WalkedStep {
    ProposalKey key;
    Evaluation evaluation;
    bool kept_placement = false;
  };
  // A copy of a proposer and what it proposed, step by step.
  struct Walk {
    std::unique_ptr<Proposer> proposer;
    std::vector<WalkedStep> steps;
  };
  struct Ahead {
    std::size_t step;  // in steps_
    Storage needed;    // its total storage
    Evaluation evaluation;
  };
  // A thread's copy of the proposal it evaluates, walked along steps_.
  struct Lane {
    std::unique_ptr<PartitionWorkspace> workspace;
    Proposal proposal;
    std::size_t step = 0;  // the step `proposal` holds; SIZE_MAX: none yet
  };

  // `needed` is the proposal's total storage (ProposalTally). The placement is kept
  // only when the rating is below `keep_below`; otherwise it goes back to `workspace`.
  Evaluation evaluate_now(const Proposal& proposal, const Storage& needed, PartitionWorkspace* workspace,
                          double keep_below) const;
  void walk(Walk& walk, PartitionWorkspace* workspace) const;
  void evaluate_ahead(const Proposer& proposer, double best_rating,
                      const std::function<bool(const ProposalKey&)>& known);

  const Partitioner& partitioner_;
  bool partition_every_proposal_;  // also those needing more than capacity_
  bool rate_every_plan_;           // false: no one reads a rating except to compare it with the best
  const PlanStop* stop_;           // polled by the walks; may be null
  const PerfModel& perf_model_;
  const Topology& constraint_;
  const SearchSpace& space_;
  Storage capacity_;  // all devices of constraint_ together
  const ProposalKeyer& keyer_;
  const Parallelism& parallelism_;
  int threads_ = 1;                                // threads for evaluating single proposals ahead
  std::unique_ptr<PartitionWorkspace> workspace_;  // the loop thread's
  std::vector<Lane> lanes_;                        // one per thread evaluating ahead
  ProposalSteps steps_;                            // the proposals of the last evaluate_ahead
  std::vector<Walk> walks_;                        // per proposer; a proposer is null when not walked
  std::size_t first_walked_;
  std::future<void> walking_;  // the walks, on their own thread
  Walk* current_walk_ = nullptr;
  std::unordered_map<ProposalKey, Ahead, ProposalKeyHash> ahead_;
};

}  // namespace shardplan
