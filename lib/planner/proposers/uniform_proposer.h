// torchrec's UniformProposer: one proposal per sharding type that every table has.
#pragma once

#include <vector>

#include "planner/proposers/proposer.h"

namespace shardplan {

// For each sharding type (in order of first appearance) offered for every table,
// proposes each table's best option of that type by max shard perf.
class UniformProposer final : public Proposer {
 public:
  explicit UniformProposer(bool use_depth = true) : use_depth_(use_depth) {}
  std::optional<std::string> load(SearchSpace& space, const OptionEstimator* estimator) override;
  std::optional<Proposal> propose() override;
  void feedback(const ProposerFeedback& feedback) override;
  bool reads_ratings() const override { return false; }
  void lookahead(std::size_t n, ProposalSteps& out) const override;

 private:
  bool use_depth_;
  std::vector<Proposal> proposals_;
  std::size_t index_ = 0;
};

}  // namespace shardplan
