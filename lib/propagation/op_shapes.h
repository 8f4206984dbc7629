// Shape rules of the op kinds (docs/formats/propagate.md): operand counts, attribute
// checks and result shape inference, shared by both input readers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "propagation/program.h"

namespace shardplan::propagation {

// "" when `op` has one result and the operand count of its kind; else what is wrong.
std::string check_arity(const Op& op);

// Infers the result shape of `op` from its operand shapes `in` (`given`: the declared
// result shape, nullptr when omitted; reshape and broadcast_in_dim need it). Returns ""
// and sets `out`, or the problem ("operand shapes differ: [8, 8] != [8, 4]").
std::string infer_result_shape(const Op& op, const std::vector<Shape>& in, const Shape* given,
                               std::optional<Shape>& out);

}  // namespace shardplan::propagation
