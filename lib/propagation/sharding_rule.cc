#include "propagation/sharding_rule.h"

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>

namespace shardplan::propagation {

namespace {

constexpr int kNoDim = -1;

// Shardy's OpShardingRuleBuilder: factors are created in order and appended to
// the dims they map.
class RuleBuilder {
 public:
  RuleBuilder(const std::vector<Shape>& operand_shapes, const Shape& result_shape) {
    rule_.num_operands = static_cast<int>(operand_shapes.size());
    for (const Shape& s : operand_shapes) rule_.tensor_dims.emplace_back(s.size());
    rule_.tensor_dims.emplace_back(result_shape.size());
  }

  // A new factor of `size`, appended to operand k's dim operand_dims[k] (kNoDim: none)
  // and to the result's dim result_dim. A size-1 factor is not appended to a dim that
  // already has a factor (it would add nothing).
  void add(const std::vector<int>& operand_dims, int result_dim, std::int64_t size,
           FactorType type = FactorType::kPass) {
    int factor = rule_.num_factors();
    rule_.factor_sizes.push_back(size);
    rule_.factor_types.push_back(type);
    for (std::size_t k = 0; k < operand_dims.size(); ++k) attach(static_cast<int>(k), operand_dims[k], factor);
    attach(rule_.num_operands, result_dim, factor);
  }
  // Same factor on dim `dim` of every operand.
  void add_all_operands(int dim, int result_dim, std::int64_t size, FactorType type = FactorType::kPass) {
    add(std::vector<int>(rule_.num_operands, dim), result_dim, size, type);
  }

  // Every dim still without a factor gets its own size-1 factor.
  ShardingRule finish() {
    for (auto& dims : rule_.tensor_dims)
      for (auto& factors : dims)
        if (factors.empty()) {
          factors.push_back(rule_.num_factors());
          rule_.factor_sizes.push_back(1);
          rule_.factor_types.push_back(FactorType::kPass);
        }
    return std::move(rule_);
  }

  ShardingRule& rule() { return rule_; }

 private:
  void attach(int tensor, int dim, int factor) {
    if (dim == kNoDim) return;
    auto& factors = rule_.tensor_dims[tensor][dim];
    if (rule_.factor_sizes[factor] == 1 && !factors.empty()) return;
    factors.push_back(factor);
  }
  ShardingRule rule_;
};

struct RuleInputs {
  const Op& op;
  const std::vector<Shape>& in;
  const Shape& out;
  bool conservative;
};

void elementwise_rule(RuleBuilder& b, const RuleInputs& r) {
  b.rule().elementwise = true;
  for (std::size_t d = 0; d < r.out.size(); ++d) b.add_all_operands(static_cast<int>(d), static_cast<int>(d), r.out[d]);
}

void transpose_rule(RuleBuilder& b, const RuleInputs& r) {
  for (std::size_t o = 0; o < r.out.size(); ++o) {
    int source = static_cast<int>(r.op.permutation[o]);
    b.add({source}, static_cast<int>(o), r.in[0][source]);
  }
}

// Batch dims, then lhs free dims, then rhs free dims, then contracting dims.
void dot_rule(RuleBuilder& b, const RuleInputs& r, const std::vector<std::int64_t>& lb,
              const std::vector<std::int64_t>& rb, const std::vector<std::int64_t>& lc,
              const std::vector<std::int64_t>& rc) {
  const Shape& lhs = r.in[0];
  const Shape& rhs = r.in[1];
  int next = 0;
  for (std::size_t k = 0; k < lb.size(); ++k)
    b.add({static_cast<int>(lb[k]), static_cast<int>(rb[k])}, next++, lhs[lb[k]]);
  auto is_in = [](const std::vector<std::int64_t>& list, std::size_t d) {
    return std::find(list.begin(), list.end(), static_cast<std::int64_t>(d)) != list.end();
  };
  for (std::size_t d = 0; d < lhs.size(); ++d)
    if (!is_in(lb, d) && !is_in(lc, d)) b.add({static_cast<int>(d), kNoDim}, next++, lhs[d]);
  for (std::size_t d = 0; d < rhs.size(); ++d)
    if (!is_in(rb, d) && !is_in(rc, d)) b.add({kNoDim, static_cast<int>(d)}, next++, rhs[d]);
  for (std::size_t k = 0; k < lc.size(); ++k)
    b.add({static_cast<int>(lc[k]), static_cast<int>(rc[k])}, kNoDim, lhs[lc[k]], FactorType::kReduction);
}

void dot_general_rule(RuleBuilder& b, const RuleInputs& r) {
  const Op& op = r.op;
  dot_rule(b, r, op.lhs_batching_dims, op.rhs_batching_dims, op.lhs_contracting_dims, op.rhs_contracting_dims);
}

void matmul_rule(RuleBuilder& b, const RuleInputs& r) { dot_rule(b, r, {}, {}, {1}, {0}); }

void reduce_rule(RuleBuilder& b, const RuleInputs& r) {
  int next = 0;
  for (std::size_t d = 0; d < r.in[0].size(); ++d) {
    bool reduced = std::find(r.op.dimensions.begin(), r.op.dimensions.end(), static_cast<std::int64_t>(d)) !=
                   r.op.dimensions.end();
    if (reduced)
      b.add({static_cast<int>(d)}, kNoDim, r.in[0][d], FactorType::kReduction);
    else
      b.add({static_cast<int>(d)}, next++, r.in[0][d]);
  }
}

void broadcast_rule(RuleBuilder& b, const RuleInputs& r) {
  const Shape& in = r.in[0];
  std::vector<int> source(r.out.size(), kNoDim);
  for (std::size_t i = 0; i < r.op.broadcast_dimensions.size(); ++i)
    source[r.op.broadcast_dimensions[i]] = static_cast<int>(i);
  for (std::size_t o = 0; o < r.out.size(); ++o) {
    int i = source[o];
    // An expanded size-1 dim gets its own size-1 factor and the result dim is then unrelated to it.
    if (i != kNoDim && in[i] == 1 && r.out[o] != 1) {
      b.add({i}, kNoDim, 1);
      i = kNoDim;
    }
    b.add({i}, static_cast<int>(o), r.out[o]);
  }
}

void concatenate_rule(RuleBuilder& b, const RuleInputs& r) {
  int concat = static_cast<int>(r.op.dimension);
  for (std::size_t d = 0; d < r.out.size(); ++d) {
    int dim = static_cast<int>(d);
    if (dim == concat && r.conservative) continue;
    b.add_all_operands(dim, dim, r.out[d], dim == concat ? FactorType::kNeedReplication : FactorType::kPass);
  }
}

// Shardy's reshape factorisation: walks both shapes, splitting each dim into the
// factors that line up with the other side (covers split, merge and mixed cases).
void reshape_rule(RuleBuilder& b, const RuleInputs& r) {
  const Shape& in = r.in[0];
  const Shape& out = r.out;
  std::size_t rank_in = in.size(), rank_out = out.size();
  std::size_t i = 0, o = 0;
  std::int64_t dim_in = 1, dim_out = 1, fact_in = 1, fact_out = 1;
  auto shrink = [](std::int64_t n, std::int64_t small, std::int64_t big, std::int64_t g) {
    if (big % small == 0 && n % (big / small) == 0) return big / small;
    return n > g ? n / g : n;
  };
  while (i < rank_in || o < rank_out) {
    int di = static_cast<int>(i), dout = static_cast<int>(o);
    if (i < rank_in && in[i] == 1) {
      b.add({di}, kNoDim, 1);
      ++i;
      continue;
    }
    if (o < rank_out && out[o] == 1) {
      b.add({kNoDim}, dout, 1);
      ++o;
      continue;
    }
    if (i < rank_in && dim_in == fact_in) dim_in *= in[i];
    if (o < rank_out && dim_out == fact_out) dim_out *= out[o];
    std::int64_t n_in = dim_in / fact_in, n_out = dim_out / fact_out;
    std::int64_t g = std::gcd(n_in, n_out);
    int at_in = i < rank_in ? di : kNoDim, at_out = o < rank_out ? dout : kNoDim;
    if (fact_in == fact_out) {
      if (g > 1) {
        b.add({at_in}, at_out, g);
        fact_in *= g;
        fact_out *= g;
      } else {
        b.add({at_in}, kNoDim, n_in);
        fact_in *= n_in;
        b.add({kNoDim}, at_out, n_out);
        fact_out *= n_out;
      }
    } else if (fact_in < fact_out) {
      std::int64_t s = shrink(n_in, fact_in, fact_out, g);
      b.add({at_in}, kNoDim, s);
      fact_in *= s;
    } else {
      std::int64_t s = shrink(n_out, fact_out, fact_in, g);
      b.add({kNoDim}, at_out, s);
      fact_out *= s;
    }
    if (i < rank_in && dim_in == fact_in) ++i;
    if (o < rank_out && dim_out == fact_out) ++o;
  }
}

using RuleFn = void (*)(RuleBuilder&, const RuleInputs&);

// The one table of sharding rules: the builder of every op kind, in kOpKindNames order.
constexpr std::array<std::pair<OpKind, RuleFn>, kOpKindNames.size()> kRuleBuilders{{
    {OpKind::kNegate, elementwise_rule},   {OpKind::kAbs, elementwise_rule},
    {OpKind::kExp, elementwise_rule},      {OpKind::kLog, elementwise_rule},
    {OpKind::kSqrt, elementwise_rule},     {OpKind::kRsqrt, elementwise_rule},
    {OpKind::kTanh, elementwise_rule},     {OpKind::kSine, elementwise_rule},
    {OpKind::kCosine, elementwise_rule},   {OpKind::kLogistic, elementwise_rule},
    {OpKind::kConvert, elementwise_rule},  {OpKind::kCopy, elementwise_rule},
    {OpKind::kAdd, elementwise_rule},      {OpKind::kSubtract, elementwise_rule},
    {OpKind::kMultiply, elementwise_rule}, {OpKind::kDivide, elementwise_rule},
    {OpKind::kMaximum, elementwise_rule},  {OpKind::kMinimum, elementwise_rule},
    {OpKind::kPower, elementwise_rule},    {OpKind::kDotGeneral, dot_general_rule},
    {OpKind::kMatmul, matmul_rule},        {OpKind::kReduce, reduce_rule},
    {OpKind::kTranspose, transpose_rule},  {OpKind::kBroadcastInDim, broadcast_rule},
    {OpKind::kReshape, reshape_rule},      {OpKind::kConcatenate, concatenate_rule},
}};

constexpr bool table_in_kind_order() {
  for (std::size_t k = 0; k < kRuleBuilders.size(); ++k)
    if (kRuleBuilders[k].first != kOpKindNames[k].value) return false;
  return true;
}
static_assert(table_in_kind_order(), "kRuleBuilders must list every op kind in kOpKindNames order");

RuleFn rule_builder_of(OpKind kind) { return kRuleBuilders[static_cast<std::size_t>(kind)].second; }

std::string factor_name(int factor) {
  if (factor <= 17) return std::string(1, static_cast<char>('i' + factor));
  return "z_" + std::to_string(factor - 17);
}

std::string tensor_text(const std::vector<std::vector<int>>& dims) {
  std::string out = "[";
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (d) out += ", ";
    for (int f : dims[d]) out += factor_name(f);
  }
  return out + "]";
}

std::string factor_list(const ShardingRule& rule, FactorType type) {
  std::string out;
  for (int f = 0; f < rule.num_factors(); ++f)
    if (rule.factor_types[f] == type) out += (out.empty() ? "" : ", ") + factor_name(f);
  return out;
}

}  // namespace

std::optional<ShardingRule> build_sharding_rule(const Op& op, const std::vector<Shape>& operand_shapes,
                                                const Shape& result_shape, bool conservative_propagation) {
  if (op.kind == OpKind::kReshape && element_count(operand_shapes[0]) == 0) return std::nullopt;
  if (op.kind == OpKind::kCall) return std::nullopt;
  RuleBuilder builder(operand_shapes, result_shape);
  RuleInputs inputs{op, operand_shapes, result_shape, conservative_propagation};
  rule_builder_of(op.kind)(builder, inputs);
  return builder.finish();
}

ShardingRule identity_rule(const Shape& shape) {
  RuleBuilder builder({shape}, shape);
  for (std::size_t d = 0; d < shape.size(); ++d) builder.add({static_cast<int>(d)}, static_cast<int>(d), shape[d]);
  return builder.finish();
}

std::string rule_text(const ShardingRule& rule) {
  std::string out = "(";
  for (int t = 0; t < rule.num_operands; ++t) out += (t ? ", " : "") + tensor_text(rule.tensor_dims[t]);
  out += ")->(";
  for (int t = rule.num_operands; t < rule.num_tensors(); ++t)
    out += (t > rule.num_operands ? ", " : "") + tensor_text(rule.tensor_dims[t]);
  out += ")";
  if (rule.num_factors() == 0) return out;
  out += " {";
  for (int f = 0; f < rule.num_factors(); ++f)
    out += (f ? ", " : "") + factor_name(f) + "=" + std::to_string(rule.factor_sizes[f]);
  out += "}";
  if (auto list = factor_list(rule, FactorType::kReduction); !list.empty()) out += " reduction={" + list + "}";
  if (auto list = factor_list(rule, FactorType::kNeedReplication); !list.empty())
    out += " need_replication={" + list + "}";
  return out;
}

}  // namespace shardplan::propagation
