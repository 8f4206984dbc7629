#include "planner/proposers/grid_search_proposer.h"

#include "planner/proposal_steps.h"
#include "planner/proposers/proposer_util.h"

namespace shardplan {

std::optional<std::string> GridSearchProposer::load(SearchSpace& space, const OptionEstimator* /*estimator*/) {
  by_table_ = space.tables();
  for (auto& options : by_table_) proposer_util::sort_by_score(space, options, /*use_depth=*/true);
  index_ = 0;
  total_ = 0;
  digits_.assign(by_table_.size(), 0);
  std::int64_t product = 1;
  for (const auto& options : by_table_) {
    product *= static_cast<std::int64_t>(options.size());
    // torchrec compares the exact product with MAX_PROPOSALS; stop early to avoid overflow.
    if (product > max_proposals_) return std::nullopt;
  }
  total_ = by_table_.empty() ? 0 : product;
  return std::nullopt;
}

std::optional<Proposal> GridSearchProposer::propose() {
  if (index_ >= total_) return std::nullopt;
  Proposal proposal(by_table_.size());
  for (std::size_t t = 0; t < by_table_.size(); ++t) proposal[t] = by_table_[t][digits_[t]];
  return proposal;
}

void GridSearchProposer::feedback(const ProposerFeedback& /*feedback*/) {
  // Static strategy: the next combination regardless of the verdict.
  ++index_;
  for (std::size_t t = by_table_.size(); t-- > 0;) {
    if (++digits_[t] < by_table_[t].size()) break;
    digits_[t] = 0;
  }
}

}  // namespace shardplan

namespace shardplan {

void GridSearchProposer::lookahead(std::size_t n, ProposalSteps& out) const {
  out = ProposalSteps{};
  if (index_ >= total_ || n == 0) return;
  std::vector<std::size_t> digits = digits_;
  Proposal first(by_table_.size());
  for (std::size_t t = 0; t < by_table_.size(); ++t) first[t] = by_table_[t][digits[t]];
  out.start(std::move(first));
  // The next combination, as the odometer's digits that turned.
  for (std::int64_t index = index_ + 1; index < total_ && out.size() < n; ++index) {
    for (std::size_t t = by_table_.size(); t-- > 0;) {
      const bool carry = ++digits[t] == by_table_[t].size();
      if (carry) digits[t] = 0;
      out.change(t, by_table_[t][digits[t]]);
      if (!carry) break;
    }
    out.end_proposal();
  }
}

}  // namespace shardplan
