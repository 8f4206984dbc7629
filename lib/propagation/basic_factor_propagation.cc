#include "propagation/basic_factor_propagation.h"

#include <numeric>

namespace shardplan::propagation {

Direction direction_union(Direction a, Direction b) {
  if (a == Direction::kNone) return b;
  if (b == Direction::kNone) return a;
  if (a == b) return a;
  return Direction::kBoth;
}

namespace {

struct Combined {
  AxisList axes;
  bool can_expand = true;
};

// Merges the axes seen so far (`old`) with one more tensor's (`added`): keeps the
// common prefix, and a longer list only while expansion is allowed.
Combined combine(const AxisList& old, const AxisList& added, bool can_expand) {
  Combined out;
  std::size_t i = 0, j = 0;
  while (i < old.size() && j < added.size()) {
    const AxisRef& o = old[i++];
    const AxisRef& n = added[j++];
    if (n.axis != o.axis) return {std::move(out.axes), false};
    if (n == o) {
      out.axes.push_back(n);
      continue;
    }
    if (is_prefix(n, o)) {
      if (j < added.size()) {
        out.axes.push_back(n);
        return {std::move(out.axes), false};
      }
      out.axes.push_back(o);
    } else if (is_prefix(o, n)) {
      if (!can_expand || i < old.size()) {
        out.axes.push_back(o);
        return {std::move(out.axes), false};
      }
      out.axes.push_back(n);
    } else {
      return {std::move(out.axes), false};
    }
  }
  out.axes.insert(out.axes.end(), old.begin() + i, old.end());
  if (can_expand) out.axes.insert(out.axes.end(), added.begin() + j, added.end());
  out.can_expand = can_expand;
  return out;
}

}  // namespace

AxisList BasicFactorPropagation::candidates(const FactorPropagationContext& context, const Projection& projection,
                                            int f) {
  Direction dir = context.directions[f];
  if (dir == Direction::kNone) return {};
  int n = static_cast<int>(projection.tensors.size());
  int ops = projection.num_operands;
  bool operands_first = dir != Direction::kBackward;
  Combined acc;
  auto fold = [&](int begin, int end) {
    for (int t = begin; t < end; ++t) {
      const FactorSharding& fs = projection.tensors[t].factors[f];
      if (!fs.present) continue;
      if (acc.axes.empty() && acc.can_expand) {
        acc.axes = fs.axes;
        continue;
      }
      acc = combine(acc.axes, fs.axes, acc.can_expand);
    }
  };
  if (operands_first)
    fold(0, ops);
  else
    fold(ops, n);
  if (dir != Direction::kBoth) acc.can_expand = false;
  if (operands_first)
    fold(ops, n);
  else
    fold(0, ops);
  return acc.axes;
}

std::optional<AxisRef> BasicFactorPropagation::across(std::optional<AxisRef> x, const TensorFactorShardings& t, int f) {
  for (int g = 0; g < static_cast<int>(t.factors.size()) && x; ++g) {
    if (g == f || !t.factors[g].present) continue;
    x = cut_all(x, t.factors[g].overflow);
    x = cut_all(x, t.factors[g].axes);
  }
  return x;
}

std::optional<AxisRef> BasicFactorPropagation::within(const AxisRef& x_in, const TensorFactorShardings& t, int f,
                                                      std::int64_t prev, std::int64_t factor_size) {
  std::optional<AxisRef> cut_x = cut_all(x_in, t.replicated);
  if (!cut_x) return cut_x;
  const AxisRef& x = *cut_x;
  const FactorSharding& fs = t.factors[f];
  for (const AxisRef& a : fs.axes)
    if (contains(a, x)) return x;
  if (!fs.closed && fs.overflow.empty()) {
    if (fs.minor) return x;
    if (prev != 0 && factor_size % prev == 0) {
      std::int64_t g = std::gcd(factor_size / prev, x.size);
      if (g == x.size) return x;
      if (g > 1) return sub_axis(x, x.pre, g);
    }
  }
  if (!fs.axes.empty() && is_prefix(fs.axes.back(), x)) return fs.axes.back();
  return std::nullopt;
}

void BasicFactorPropagation::propagate(const FactorPropagationContext& context, Projection& projection) const {
  for (int f = 0; f < context.rule.num_factors(); ++f) {
    AxisList axes = candidates(context, projection, f);
    if (axes.empty()) continue;
    std::int64_t factor_size = context.rule.factor_sizes[f];
    truncate(
        axes,
        [&](const AxisRef& x, std::int64_t prev) -> std::optional<AxisRef> {
          std::optional<AxisRef> y = x;
          for (const TensorFactorShardings& t : projection.tensors) {
            y = across(y, t, f);
            if (!y) return y;
            if (t.factors[f].present) y = within(*y, t, f, prev, factor_size);
            if (!y) return y;
          }
          return y;
        },
        context.conservative_propagation);
    for (TensorFactorShardings& t : projection.tensors) {
      FactorSharding& fs = t.factors[f];
      if (fs.present && is_strict_prefix(fs.axes, axes)) {
        fs.axes = axes;
        t.updated = true;
      }
    }
  }
}

}  // namespace shardplan::propagation
