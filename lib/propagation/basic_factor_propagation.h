// Basic factor propagation (docs/formats/propagate.md, Shardy's BasicFactorPropagation): every
// tensor of the op takes the axes all of them are compatible with; no conflict
// resolution. Its steps are shared with the aggressive propagation.
#pragma once

#include <cstdint>
#include <optional>

#include "propagation/factor_propagation.h"

namespace shardplan::propagation {

class BasicFactorPropagation : public FactorPropagation {
 public:
  // Factor by factor (later factors see earlier updates): the candidate axes,
  // truncated to what every tensor can take, go to every tensor they extend.
  void propagate(const FactorPropagationContext& context, Projection& projection) const override;

 protected:
  // The axes factor `f` could take: the tensors' axes combined in direction order.
  static AxisList candidates(const FactorPropagationContext& context, const Projection& projection, int f);
  // `x` without what tensor `t` uses on its other factors.
  static std::optional<AxisRef> across(std::optional<AxisRef> x, const TensorFactorShardings& t, int f);
  // The part of `x` that tensor `t`'s factor `f` can hold, given `prev` (product of earlier axes).
  static std::optional<AxisRef> within(const AxisRef& x, const TensorFactorShardings& t, int f, std::int64_t prev,
                                       std::int64_t factor_size);
  // Keeps the longest prefix of `list` that `step(x, prev)` leaves unchanged, plus the first
  // changed axis (`prev` = product of the sizes kept before x). A template, not a
  // std::function: it runs for every tensor and factor of every visit.
  template <typename Step>
  static void truncate(AxisList& list, const Step& step, bool conservative_propagation) {
    std::int64_t prev = 1;
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::optional<AxisRef> y = step(list[i], prev);
      if (!y || (conservative_propagation && !y->full())) {
        list.resize(i);
        return;
      }
      if (!(*y == list[i])) {
        list[i] = *y;
        list.resize(i + 1);
        return;
      }
      prev *= y->size;
    }
  }
};

}  // namespace shardplan::propagation
