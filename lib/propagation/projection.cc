#include "propagation/projection.h"

#include <numeric>

namespace shardplan::propagation {

namespace {

// Splits the dim's axes among its factors, major first (Shardy's
// TensorFactorShardings::createFromDimSharding).
void project_dim(const ShardingRule& rule, const std::vector<int>& factors, const DimSharding& dim,
                 TensorFactorShardings& out) {
  std::size_t next_axis = 0;
  bool have_piece = false;
  AxisRef piece;
  auto advance = [&] {
    if (next_axis < dim.axes.size()) {
      piece = dim.axes[next_axis++];
      have_piece = true;
    } else {
      have_piece = false;
    }
  };
  advance();
  bool overflow_seen = false;
  for (std::size_t k = 0; k < factors.size(); ++k) {
    int f = factors[k];
    FactorSharding& fs = out.factors[f];
    fs.present = true;
    if (overflow_seen) {
      // A factor after one whose axes overflowed cannot be sharded (it would need a strided view).
      fs.closed = true;
      return;
    }
    fs.closed = dim.closed;
    fs.minor = k + 1 == factors.size();
    if (fs.minor) {
      while (have_piece) {
        append_axis(fs.axes, piece);
        advance();
      }
      return;
    }
    std::int64_t need = rule.factor_sizes[f];
    while (have_piece) {
      std::int64_t g = 1;
      if (piece.size != 1) {
        g = std::gcd(need, piece.size);
        if (g <= 1) break;
      }
      if (piece.size > g) {
        fs.axes.push_back(sub_axis(piece, piece.pre, g));
        piece.pre *= g;
        piece.size /= g;
        need /= g;
      } else {
        fs.axes.push_back(piece);
        need /= piece.size;
        advance();
      }
    }
    if (need > 1 && have_piece) {
      overflow_seen = true;
      while (have_piece) {
        append_axis(fs.overflow, piece);
        advance();
      }
    }
  }
}

}  // namespace

void project(const ShardingRule& rule, const std::vector<const TensorSharding*>& shardings, Projection& out) {
  out.num_operands = rule.num_operands;
  out.tensors.resize(shardings.size());
  for (std::size_t t = 0; t < shardings.size(); ++t) {
    TensorFactorShardings& tf = out.tensors[t];
    // Entries are reset in place: their axis lists keep their capacity from visit to visit.
    tf.factors.resize(rule.num_factors());
    for (FactorSharding& fs : tf.factors) {
      fs.present = fs.closed = fs.minor = false;
      fs.axes.clear();
      fs.overflow.clear();
    }
    tf.replicated = shardings[t]->replicated;
    tf.updated = false;
    const auto& dims = rule.tensor_dims[t];
    for (std::size_t d = 0; d < dims.size(); ++d) project_dim(rule, dims[d], shardings[t]->dims[d], tf);
    tf.size = 1;
    for (int f = 0; f < rule.num_factors(); ++f)
      if (tf.factors[f].present) tf.size = saturating_product(tf.size, rule.factor_sizes[f]);
  }
}

TensorSharding unproject(const ShardingRule& rule, const Projection& projection, int t, const TensorSharding& before) {
  const TensorFactorShardings& tf = projection.tensors[t];
  TensorSharding out;
  out.replicated = tf.replicated;
  const auto& dims = rule.tensor_dims[t];
  out.dims.resize(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    DimSharding& dim = out.dims[d];
    dim.closed = before.dims[d].closed;
    dim.priority = before.dims[d].priority;
    for (int f : dims[d]) {
      const FactorSharding& fs = tf.factors[f];
      if (!fs.present) break;
      dim.closed = dim.closed || fs.closed;
      for (std::size_t i = 0; i < fs.axes.size(); ++i) {
        if (i == 0)
          append_axis(dim.axes, fs.axes[i]);
        else
          dim.axes.push_back(fs.axes[i]);
      }
      if (!fs.overflow.empty()) {
        for (const AxisRef& x : fs.overflow) append_axis(dim.axes, x);
        break;
      }
      if (total_size(fs.axes) < rule.factor_sizes[f]) break;
    }
  }
  return out;
}

}  // namespace shardplan::propagation
