#include <stdexcept>
#include <string>

#include "config/planner_names.h"
#include "planner/proposers/greedy_proposer.h"
#include "planner/proposers/grid_search_proposer.h"
#include "planner/proposers/offload_scaleup_proposer.h"
#include "planner/proposers/proposer.h"
#include "planner/proposers/uniform_proposer.h"

namespace shardplan {

std::unique_ptr<Proposer> make_proposer(ProposerKind kind, const ProposerOptions& options) {
  switch (kind) {
    case ProposerKind::kGridSearch:
      return std::make_unique<GridSearchProposer>(options.max_proposals);
    case ProposerKind::kGreedy:
      return std::make_unique<GreedyProposer>(true, options.greedy_threshold);
    case ProposerKind::kGreedySum:
      return std::make_unique<GreedyProposer>(false, options.greedy_threshold);
    case ProposerKind::kUniform:
      return std::make_unique<UniformProposer>();
    case ProposerKind::kOffloadScaleup:
      return std::make_unique<EmbeddingOffloadScaleupProposer>();
  }
  return nullptr;  // unreachable: the switch covers every kind (-Wswitch)
}

}  // namespace shardplan
