// torchrec's EmbeddingOffloadScaleupProposer: starts from each table's best
// fused_uvm_caching option and would spend spare HBM on larger caches.
#pragma once

#include <vector>

#include "planner/proposers/proposer.h"

namespace shardplan {

// The budget search over cache load factors only scales tables with cache
// statistics (cacheability x expected lookups > 0). Our inputs carry no cache
// statistics, so, exactly as torchrec without stats, the proposer evaluates one
// proposal: each table's first fused_uvm_caching option by perf (else its best
// option), with tables whose all-HBM form is smaller promoted to `fused`.
class EmbeddingOffloadScaleupProposer final : public Proposer {
 public:
  explicit EmbeddingOffloadScaleupProposer(bool use_depth = true) : use_depth_(use_depth) {}
  std::optional<std::string> load(SearchSpace& space, const OptionEstimator* estimator) override;
  std::optional<Proposal> propose() override;
  void feedback(const ProposerFeedback& feedback) override;
  bool reads_ratings() const override { return false; }

 private:
  bool use_depth_;
  std::optional<Proposal> proposal_;
};

}  // namespace shardplan
