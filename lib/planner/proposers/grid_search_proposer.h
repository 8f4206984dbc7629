// torchrec's GridSearchProposer: every combination of one option per table.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/proposers/proposer.h"

namespace shardplan {

// Proposes the cartesian product of the tables' options (each table's options
// sorted by max shard perf), last table varying fastest like itertools.product.
// Proposes nothing when the product exceeds max_proposals (torchrec skips itself).
class GridSearchProposer final : public Proposer {
 public:
  explicit GridSearchProposer(std::int64_t max_proposals = 10'000) : max_proposals_(max_proposals) {}
  std::optional<std::string> load(SearchSpace& space, const OptionEstimator* estimator) override;
  std::optional<Proposal> propose() override;
  void feedback(const ProposerFeedback& feedback) override;
  bool reads_ratings() const override { return false; }
  void lookahead(std::size_t n, ProposalSteps& out) const override;

  // How many proposals load() scheduled (0 when skipped).
  std::int64_t num_scheduled() const { return total_; }

 private:
  std::int64_t max_proposals_;
  std::vector<std::vector<OptionId>> by_table_;
  std::vector<std::size_t> digits_;  // the current proposal as mixed-radix digits
  std::int64_t total_ = 0;
  std::int64_t index_ = 0;
};

}  // namespace shardplan
