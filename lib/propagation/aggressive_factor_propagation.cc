#include "propagation/aggressive_factor_propagation.h"

#include <algorithm>
#include <tuple>

namespace shardplan::propagation {

namespace {

// The tensor a factor's candidate comes from: the biggest tensor already holding it.
struct FactorSource {
  int tensor = -1;
  std::int64_t size = -1;
};

}  // namespace

void AggressiveFactorPropagation::propagate(const FactorPropagationContext& context, Projection& projection) const {
  const ShardingRule& rule = context.rule;
  int num_factors = rule.num_factors();
  std::vector<AxisList> candidate(num_factors);
  bool any = false;
  for (int f = 0; f < num_factors; ++f) {
    candidate[f] = candidates(context, projection, f);
    any = any || !candidate[f].empty();
  }
  if (!any) return;

  int num_tensors = static_cast<int>(projection.tensors.size());
  std::vector<FactorSource> source(num_factors);
  for (int f = 0; f < num_factors; ++f) {
    if (candidate[f].empty()) continue;
    for (int t = 0; t < num_tensors; ++t) {
      const TensorFactorShardings& tensor = projection.tensors[t];
      if (prefix_status(candidate[f], tensor.factors[f].axes) == PrefixStatus::kNotPrefix) continue;
      if (tensor.size > source[f].size) source[f] = FactorSource{t, tensor.size};
    }
  }
  // Bigger source first (resharding the smaller tensor is cheaper), then the more
  // sharded factor on element-wise ops, then the earlier tensor, then the factor index.
  std::vector<int> order(num_factors);
  for (int f = 0; f < num_factors; ++f) order[f] = f;
  auto key = [&](int f) {
    std::int64_t sharded = context.elementwise ? total_size(candidate[f]) : 0;
    return std::make_tuple(-source[f].size, -sharded, source[f].tensor, f);
  };
  std::sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });

  auto update = [&](int t, bool is_operand) {
    TensorFactorShardings& tensor = projection.tensors[t];
    for (int f : order) {
      FactorSharding& fs = tensor.factors[f];
      if (!fs.present || candidate[f].empty()) continue;
      std::int64_t factor_size = rule.factor_sizes[f];
      AxisList axes = candidate[f];
      truncate(
          axes, [&](const AxisRef& x, std::int64_t prev) { return within(x, tensor, f, prev, factor_size); },
          context.conservative_propagation);
      if (!is_strict_prefix(fs.axes, axes)) continue;
      truncate(
          axes, [&](const AxisRef& x, std::int64_t) { return across(x, tensor, f); }, context.conservative_propagation);
      if (axes.empty()) continue;
      if (is_operand && context.elementwise) {
        // An element-wise operand takes no more than what the results accepted.
        for (int r = projection.num_operands; r < num_tensors; ++r) {
          const FactorSharding& result = projection.tensors[r].factors[f];
          if (result.present && is_strict_prefix(result.axes, axes)) axes = result.axes;
        }
      }
      if (is_strict_prefix(fs.axes, axes)) {
        fs.axes = std::move(axes);
        tensor.updated = true;
      }
    }
  };
  for (int t = projection.num_operands; t < num_tensors; ++t) update(t, false);
  for (int t = 0; t < projection.num_operands; ++t) update(t, true);
}

}  // namespace shardplan::propagation
