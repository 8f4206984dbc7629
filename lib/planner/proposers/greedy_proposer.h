// torchrec's GreedyProposer: walks each table down its perf-sorted options.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "planner/proposers/proposer.h"

namespace shardplan {

// Starts from every table's best-perf option; after each proposal advances the
// table whose current option uses the most storage, compared as (max shard hbm,
// total hbm, max shard ddr, total ddr). use_depth sorts by max shard perf
// ("greedy"), otherwise by summed shard perf ("greedy_sum"). With a threshold it
// stops after more than `threshold` consecutive ratings no better than the best.
class GreedyProposer final : public Proposer {
 public:
  explicit GreedyProposer(bool use_depth = true, std::optional<int> threshold = std::nullopt)
      : use_depth_(use_depth), threshold_(threshold && *threshold != 0 ? threshold : std::nullopt) {}
  std::optional<std::string> load(const std::vector<ShardingOption>& search_space,
                                  const OptionEstimator* estimator) override;
  std::optional<Proposal> propose() override;
  void feedback(const ProposerFeedback& feedback) override;
  // The order of proposals depends on storage only; a verdict can only stop it early.
  std::vector<Proposal> lookahead(std::size_t n) const override;

 private:
  using StorageKey = std::array<std::int64_t, 4>;
  bool use_depth_;
  std::optional<int> threshold_;
  std::vector<std::vector<const ShardingOption*>> by_table_;
  std::vector<std::vector<StorageKey>> storage_keys_;  // per table, per sorted option
  std::vector<std::size_t> current_;
  // The table feedback() advances from `current` (threshold aside), or nullopt.
  std::optional<std::size_t> table_to_advance(const std::vector<std::size_t>& current) const;
  bool done_ = true;
  double best_perf_rating_ = 0;
  bool have_best_ = false;
  int num_inferior_perf_ = 0;
};

}  // namespace shardplan
