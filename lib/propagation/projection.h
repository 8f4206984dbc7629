// Projection (docs/formats/propagate.md): a tensor sharding seen through an op's
// sharding rule as one sharding per factor, and back.
#pragma once

#include <cstdint>
#include <vector>

#include "propagation/sharding.h"
#include "propagation/sharding_rule.h"

namespace shardplan::propagation {

// The part of a dim's sharding that falls on one factor.
struct FactorSharding {
  bool present = false;  // the tensor has this factor (and the projection reached it)
  AxisList axes;
  bool closed = false;
  bool minor = false;  // the last factor of its dim: may take axes beyond its size
  AxisList overflow;   // axes that did not divide this factor's size (they stay put)
};

// One operand or result of an op visit, by factor.
struct TensorFactorShardings {
  std::vector<FactorSharding> factors;  // indexed by factor
  AxisList replicated;
  std::int64_t size = 1;  // product of the sizes of the factors it has (aggressive's source order)
  bool updated = false;   // some factor's axes changed during this visit
};

// Every operand then result of one op visit.
struct Projection {
  std::vector<TensorFactorShardings> tensors;
  int num_operands = 0;
};

// Projects every tensor's sharding into factor shardings (`shardings` in rule order).
void project(const ShardingRule& rule, const std::vector<const TensorSharding*>& shardings, Projection& out);

// The sharding of tensor `t` rebuilt from its factor shardings (open/closed of `before` kept).
TensorSharding unproject(const ShardingRule& rule, const Projection& projection, int t, const TensorSharding& before);

}  // namespace shardplan::propagation
