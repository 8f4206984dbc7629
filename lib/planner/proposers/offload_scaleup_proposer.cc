#include "planner/proposers/offload_scaleup_proposer.h"

#include "planner/proposers/proposer_util.h"

namespace shardplan {

namespace {
// torchrec's promotion: all-HBM (`fused`, no load factor) form of a caching option.
void make_fused(ShardingOption& option) {
  if (option.cache_params) option.cache_params->load_factor.reset();
  option.compute_kernel = ComputeKernel::kFused;
}
}  // namespace

std::optional<std::string> EmbeddingOffloadScaleupProposer::load(
    const std::vector<ShardingOption>& search_space, const OptionEstimator* estimator) {
  estimator_ = estimator;
  owned_.clear();
  proposal_.reset();
  auto by_table = proposer_util::group_by_fqn(search_space);
  Proposal proposal;
  for (auto& options : by_table) {
    proposer_util::sort_by_score(options, use_depth_);
    const ShardingOption* selected = options.front();
    for (const auto* option : options) {
      if (option->compute_kernel == ComputeKernel::kFusedUvmCaching) {
        selected = option;
        break;
      }
    }
    owned_.push_back(*selected);
    proposal.push_back(&owned_.back());
  }
  // torchrec's promote_high_prefetch_overheaad_table_to_hbm; skipped without an
  // enumerator (estimator) as in torchrec.
  if (estimator_ && *estimator_) {
    std::vector<ShardingOption*> cached;
    for (auto& option : owned_)
      if (option.compute_kernel == ComputeKernel::kFusedUvmCaching) cached.push_back(&option);
    for (ShardingOption* original : cached) {
      // torchrec asserts cache_params on every caching option it promotes-or-not.
      if (!original->cache_params)
        return "EmbeddingOffloadScaleupProposer: table " + original->fqn() +
               " uses fused_uvm_caching without cache_params (torchrec asserts here)";
      ShardingOption what_if = *original;
      make_fused(what_if);
      (*estimator_)(what_if);
      if (what_if.total_storage().hbm < original->total_storage().hbm) make_fused(*original);
    }
    for (ShardingOption* original : cached) (*estimator_)(*original);
  }
  proposal_ = std::move(proposal);
  return std::nullopt;
}

std::optional<Proposal> EmbeddingOffloadScaleupProposer::propose() { return proposal_; }

void EmbeddingOffloadScaleupProposer::feedback(const ProposerFeedback& /*feedback*/) {
  // torchrec: without an enumerator or plan it stops; otherwise next_plan() finds no
  // table with cache statistics to scale and returns None. Either way: done.
  proposal_.reset();
}

}  // namespace shardplan
