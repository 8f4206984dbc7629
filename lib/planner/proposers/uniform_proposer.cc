#include "planner/proposers/uniform_proposer.h"

#include <set>
#include <string>
#include <unordered_map>

#include "planner/proposal_steps.h"
#include "planner/proposers/proposer_util.h"

namespace shardplan {

namespace {
struct TypeGroup {
  ShardingType type;
  std::vector<std::vector<OptionId>> by_table;               // tables in first-appearance order
  std::unordered_map<std::string, std::size_t> table_index;  // lookup only
};
}  // namespace

std::optional<std::string> UniformProposer::load(SearchSpace& space, const OptionEstimator* /*estimator*/) {
  proposals_.clear();
  index_ = 0;
  std::set<std::string> all_fqns;
  std::vector<TypeGroup> groups;
  for (std::size_t i = 0; i < space.enumerated().size(); ++i) {
    const auto id = static_cast<OptionId>(i);
    const ShardingOption& option = space[id];
    std::string fqn = option.fqn();
    all_fqns.insert(fqn);
    TypeGroup* group = nullptr;
    for (auto& g : groups)
      if (g.type == option.sharding_type) group = &g;
    if (!group) {
      groups.push_back(TypeGroup{option.sharding_type, {}, {}});
      group = &groups.back();
    }
    auto [it, inserted] = group->table_index.emplace(fqn, group->by_table.size());
    if (inserted) group->by_table.emplace_back();
    group->by_table[it->second].push_back(id);
  }
  for (auto& group : groups) {
    // torchrec compares the type's fqn set with all fqns.
    if (group.by_table.size() != all_fqns.size()) continue;
    Proposal proposal;
    for (auto& options : group.by_table) {
      proposer_util::sort_by_score(space, options, use_depth_);
      proposal.push_back(options.front());
    }
    proposals_.push_back(std::move(proposal));
  }
  return std::nullopt;
}

std::optional<Proposal> UniformProposer::propose() {
  if (index_ >= proposals_.size()) return std::nullopt;
  return proposals_[index_];
}

void UniformProposer::feedback(const ProposerFeedback& /*feedback*/) { ++index_; }

void UniformProposer::lookahead(std::size_t n, ProposalSteps& out) const {
  out = ProposalSteps{};
  if (index_ >= proposals_.size() || n == 0) return;
  out.start(proposals_[index_]);
  for (std::size_t i = index_ + 1; i < proposals_.size() && out.size() < n; ++i)
    out.append(proposals_[i - 1], proposals_[i]);
}

}  // namespace shardplan
