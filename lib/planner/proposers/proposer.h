// torchrec's Proposer stage: proposes one sharding option per table, learns from
// the partitioner's verdict, proposes again until it has nothing left.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/planner_names.h"
#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// Re-estimates one option in place after a proposer changed its kernel or cache
// (torchrec's Enumerator.populate_estimates for a single option).
using OptionEstimator = std::function<void(ShardingOption&)>;

// What the planner tells a proposer about its last proposal (torchrec's feedback()).
struct ProposerFeedback {
  bool partitionable = false;
  const Proposal* plan = nullptr;  // the proposal that was rated or failed
  std::optional<double> perf_rating;
  const Topology* storage_constraint = nullptr;
};

// A proposer: load() once with the search space, then alternate propose() /
// feedback(). Proposals are ids into the search space.
class Proposer {
 public:
  virtual ~Proposer() = default;
  // Groups the search space; returns an error message when the proposer cannot
  // work on it (torchrec raises there), else nullopt. `estimator` may be null.
  // Options the proposer derives (changed kernel or cache, re-estimated) are
  // added to `space` here, before anything is proposed; the planner loads the
  // proposers one at a time, so their ids do not depend on threads.
  virtual std::optional<std::string> load(SearchSpace& space, const OptionEstimator* estimator) = 0;
  // The next proposal, or nullopt when the proposer is done.
  virtual std::optional<Proposal> propose() = 0;
  // The verdict on the last proposal.
  virtual void feedback(const ProposerFeedback& feedback) = 0;
  // Up to `n` proposals that propose() will return next (the current one first)
  // when the verdicts do not change the sequence, only possibly end it early; the
  // planner evaluates them ahead, in parallel. Empty when the proposer cannot tell.
  virtual std::vector<Proposal> lookahead(std::size_t /*n*/) const { return {}; }
  // An independent copy in the current state, which given the same verdicts
  // proposes exactly what this one will. nullptr when the proposer cannot be copied.
  virtual std::unique_ptr<Proposer> clone() const { return nullptr; }
};

// Knobs of the proposers that the config format does not expose yet.
struct ProposerOptions {
  std::optional<int> greedy_threshold;   // GreedyProposer early stop; unset/0 = never
  std::int64_t max_proposals = 10'000;  // GridSearchProposer's MAX_PROPOSALS
};

// The proposer of `kind` (named in config/planner_names.h's kProposerNames).
std::unique_ptr<Proposer> make_proposer(ProposerKind kind, const ProposerOptions& options = {});

}  // namespace shardplan
