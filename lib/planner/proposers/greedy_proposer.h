// torchrec's GreedyProposer: walks each table down its perf-sorted options.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "planner/proposers/advance_tree.h"
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
  std::optional<std::string> load(SearchSpace& space, const OptionEstimator* estimator) override;
  std::optional<Proposal> propose() override;
  // Patches `out` with the tables advanced since the last call when it holds that proposal.
  bool propose_into(Proposal& out, bool out_is_last) override;
  void feedback(const ProposerFeedback& feedback) override;
  // The threshold early stop compares ratings; without it feedback only steps on.
  bool reads_ratings() const override { return threshold_.has_value(); }
  // The order of proposals depends on storage only; a verdict can only stop it early.
  void lookahead(std::size_t n, ProposalSteps& out) const override;
  // Its state is plain values and option ids.
  std::unique_ptr<Proposer> clone() const override { return std::make_unique<GreedyProposer>(*this); }

 private:
  using StorageKey = AdvanceTree::Key;
  // Where the walk is: each table's current option, and which table goes next.
  struct Walk {
    std::vector<std::size_t> current;  // per table, index into its sorted options
    Proposal proposal;                 // per table, its current option (kept with current)
    AdvanceTree next;
  };
  // Moves table t of `walk` to its next option.
  void advance(Walk& walk, std::size_t t) const;
  Proposal proposal_of(const Walk& walk) const;

  bool use_depth_;
  std::optional<int> threshold_;
  // Every table's options sorted by score, tables one after another (flat, so
  // that a proposal of thousands of tables is built from one array).
  std::vector<OptionId> options_;
  std::vector<StorageKey> storage_keys_;  // per entry of options_
  std::vector<std::size_t> first_;        // per table, its first entry; plus the end
  Walk walk_;
  // Tables advanced since the last propose_into (kMaxPatched at most; more: all).
  std::vector<std::size_t> advanced_;
  bool advanced_overflow_ = true;
  bool done_ = true;
  double best_perf_rating_ = 0;
  bool have_best_ = false;
  int num_inferior_perf_ = 0;
};

}  // namespace shardplan
