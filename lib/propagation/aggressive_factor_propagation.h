// Aggressive factor propagation (docs/formats/propagate.md, Shardy's AggressiveFactorPropagation):
// resolves conflicts per tensor, preferring factors whose source tensor is bigger.
#pragma once

#include "propagation/basic_factor_propagation.h"

namespace shardplan::propagation {

class AggressiveFactorPropagation : public BasicFactorPropagation {
 public:
  // Candidates are fixed before any change; each tensor (results first) takes, factor by
  // factor in source order, what it can of each candidate without clashing with its own
  // other factors.
  void propagate(const FactorPropagationContext& context, Projection& projection) const override;
};

}  // namespace shardplan::propagation
