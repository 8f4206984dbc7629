// Sharding rules (docs/formats/propagate.md): how each op's operand and result
// dimensions decompose into shared factors. One builder per op kind, in one table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "propagation/program.h"

namespace shardplan::propagation {

// How a factor may be sharded: passed through to the result, reduced over
// (contracting dims), or only usable replicated (a concatenated dim).
enum class FactorType { kPass, kReduction, kNeedReplication };

// Factors of one op, and for every dim of every operand then result the factors
// it is made of, major first.
struct ShardingRule {
  std::vector<std::int64_t> factor_sizes;
  std::vector<FactorType> factor_types;
  std::vector<std::vector<std::vector<int>>> tensor_dims;  // [operands..., results...][dim] -> factors
  int num_operands = 0;
  bool elementwise = false;  // aggressive propagation limits sideways pushes on these (§5)

  int num_factors() const { return static_cast<int>(factor_sizes.size()); }
  int num_tensors() const { return static_cast<int>(tensor_dims.size()); }
};

// The rule of `op` given its operand and result shapes; nullopt for a reshape of
// a zero-element operand (§12.2), which is never propagated through.
std::optional<ShardingRule> build_sharding_rule(const Op& op, const std::vector<Shape>& operand_shapes,
                                                const Shape& result_shape, bool conservative_propagation);

// The rule relating a returned value to the program result's own sharding (§12.3):
// one factor per dim, operand = the value, result = the output sharding; not element-wise.
ShardingRule identity_rule(const Shape& shape);

// Shardy's printed form, e.g. `([i, k], [k, j])->([i, j]) {i=8, j=8, k=8} reduction={k}`.
std::string rule_text(const ShardingRule& rule);

}  // namespace shardplan::propagation
