// torchrec's PerfModel stage: one number per placed proposal, lower is better.
#pragma once

#include <cstddef>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// Rates a placed proposal; the planner keeps the proposal with the lowest rating.
class PerfModel {
 public:
  virtual ~PerfModel() = default;
  // Called once with the search space before any rate(); proposals will point into it.
  virtual void prepare(const std::vector<ShardingOption>& /*search_space*/) {}
  virtual double rate(const Proposal& proposal, const Placement& placement, int world_size) const = 0;
};

// torchrec's NoopPerfModel: per rank, the sum of its shards' perf totals (in
// proposal then shard order); the rating is the largest of those sums.
class NoopPerfModel final : public PerfModel {
 public:
  // Precomputes every shard's total so that rating reads one flat array.
  void prepare(const std::vector<ShardingOption>& search_space) override;
  double rate(const Proposal& proposal, const Placement& placement, int world_size) const override;

 private:
  const ShardingOption* space_begin_ = nullptr;
  std::size_t space_size_ = 0;
  std::vector<std::size_t> first_shard_;  // per option, index into shard_totals_
  std::vector<char> single_total_;        // per option: every shard has the same total, stored once
  std::vector<double> shard_totals_;
};

}  // namespace shardplan
