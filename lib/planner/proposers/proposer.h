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

// Knobs of the proposers that the config format does not expose yet.
struct ProposerOptions {
  std::optional<int> greedy_threshold;  // GreedyProposer early stop; unset/0 = never
  std::int64_t max_proposals = 10'000;  // GridSearchProposer's MAX_PROPOSALS
};

// The proposer of `kind` (named in config/planner_names.h's kProposerNames).
std::unique_ptr<Proposer> make_proposer(ProposerKind kind, const ProposerOptions& options = {});

}  // namespace shardplan
