// The four propagation strategies (docs/formats/propagate.md), each building on the
// previous one as Shardy's passes do: basic -> aggressive -> op-priority -> user-priority.
#pragma once

#include <memory>
#include <vector>

#include "propagation/driver.h"

namespace shardplan::propagation {

// sdy-basic-propagate: one worklist run of basic factor propagation, every factor BOTH ways.
class BasicPropagation {
 public:
  virtual ~BasicPropagation() = default;
  // Runs the strategy on the driver's shardings, recording its iterations.
  virtual void propagate(PropagationDriver& driver) const;

 protected:
  // One propagation: a worklist run per factor propagation, each between two output syncs.
  void propagate_once(PropagationDriver& driver, const DirectionPolicy& directions) const;
  // The factor propagations one propagation runs, in order.
  virtual std::vector<const FactorPropagation*> factor_propagations(const Options& options) const;
};

// sdy-aggressive-propagate: the same, with the factor propagation(s) the options choose.
class AggressivePropagation : public BasicPropagation {
 protected:
  std::vector<const FactorPropagation*> factor_propagations(const Options& options) const override;
};

// sdy-op-priority-propagate: aggressive propagation once per op-heuristic level
// q = 0..4, each level widening which ops and factors may propagate.
class OpPriorityPropagation : public AggressivePropagation {
 public:
  void propagate(PropagationDriver& driver) const override;

 protected:
  // Every level (or one aggressive propagation with no_op_priority_propagation);
  // `report_levels` records each level as an iteration.
  void propagate_levels(PropagationDriver& driver, bool report_levels) const;
};

// sdy-user-priority-propagate: op-priority propagation once with only p0 dims,
// then once more per user priority, lowest number first.
class UserPriorityPropagation : public OpPriorityPropagation {
 public:
  void propagate(PropagationDriver& driver) const override;
};

// The strategy of `strategy`.
std::unique_ptr<BasicPropagation> make_strategy(Strategy strategy);

}  // namespace shardplan::propagation
