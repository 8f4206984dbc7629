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

std::optional<std::string> EmbeddingOffloadScaleupProposer::load(SearchSpace& space, const OptionEstimator* estimator) {
  proposal_.reset();
  // The starting proposal: each table's first caching option by score, else its best.
  std::vector<ShardingOption> starting;
  for (std::vector<OptionId> options : space.tables()) {
    proposer_util::sort_by_score(space, options, use_depth_);
    OptionId selected = options.front();
    for (OptionId option : options) {
      if (space[option].compute_kernel == ComputeKernel::kFusedUvmCaching) {
        selected = option;
        break;
      }
    }
    starting.push_back(space[selected]);
  }
  // torchrec's promote_high_prefetch_overheaad_table_to_hbm; skipped without an
  // enumerator (estimator) as in torchrec.
  if (estimator && *estimator) {
    std::vector<ShardingOption*> cached;
    for (auto& option : starting)
      if (option.compute_kernel == ComputeKernel::kFusedUvmCaching) cached.push_back(&option);
    for (ShardingOption* original : cached) {
      // torchrec asserts cache_params on every caching option it promotes-or-not.
      if (!original->cache_params)
        return "EmbeddingOffloadScaleupProposer: table " + original->fqn() +
               " uses fused_uvm_caching without cache_params (torchrec asserts here)";
      ShardingOption what_if = *original;
      make_fused(what_if);
      (*estimator)(what_if);
      if (what_if.total_storage().hbm < original->total_storage().hbm) make_fused(*original);
    }
    for (ShardingOption* original : cached) (*estimator)(*original);
  }
  // The proposal's options join the search space (an unchanged one is its own id).
  Proposal proposal;
  for (auto& option : starting) proposal.push_back(space.add(std::move(option)));
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
