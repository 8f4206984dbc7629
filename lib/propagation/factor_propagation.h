// The factor propagation interface (docs/formats/propagate.md, Shardy's
// FactorPropagation): how axes move between the tensors of one op visit.
#pragma once

#include <vector>

#include "propagation/projection.h"
#include "propagation/sharding_rule.h"

namespace shardplan::propagation {

// Which way a factor may propagate in one op visit (§7). Union order:
// NONE < FORWARD = BACKWARD < BOTH, and FORWARD ∪ BACKWARD = BOTH.
enum class Direction { kNone, kForward, kBackward, kBoth };
Direction direction_union(Direction a, Direction b);

// Settings every factor propagation of one run shares.
struct FactorPropagationContext {
  const ShardingRule& rule;
  const std::vector<Direction>& directions;  // per factor
  bool conservative_propagation = false;     // never split an axis into sub-axes
  bool elementwise = false;                  // the op is element-wise (§5 aggressive, step 4)
};

class FactorPropagation {
 public:
  virtual ~FactorPropagation() = default;
  // Moves axes between the factor shardings of one op visit, in place; marks
  // every tensor whose factor axes changed (`updated`). Never removes axes.
  virtual void propagate(const FactorPropagationContext& context, Projection& projection) const = 0;
};

}  // namespace shardplan::propagation
