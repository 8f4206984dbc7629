#include "propagation/op_shapes.h"

#include <algorithm>
#include <limits>

namespace shardplan::propagation {

namespace {

using IntList = std::vector<std::int64_t>;

std::string int_list_text(const IntList& list) { return shape_text(list); }

bool valid_dims(const IntList& dims, std::size_t rank) {
  std::vector<char> seen(rank, 0);
  for (std::int64_t d : dims) {
    if (d < 0 || static_cast<std::size_t>(d) >= rank || seen[d]) return false;
    seen[d] = 1;
  }
  return true;
}

}  // namespace

std::string infer_result_shape(const Op& op, const std::vector<Shape>& in, const Shape* given_shape,
                               std::optional<Shape>& out) {
  bool given = given_shape != nullptr;
  if (is_unary_elementwise(op.kind)) {
    out = in[0];
    return "";
  }
  if (is_binary_elementwise(op.kind)) {
    if (in[0] != in[1]) return "operand shapes differ: " + shape_text(in[0]) + " != " + shape_text(in[1]);
    out = in[0];
    return "";
  }
  switch (op.kind) {
    case OpKind::kMatmul:
      if (in[0].size() != 2 || in[1].size() != 2)
        return "matmul needs rank-2 operands, found " + shape_text(in[0]) + " and " + shape_text(in[1]);
      if (in[0][1] != in[1][0])
        return "contracting dimension sizes differ: " + std::to_string(in[0][1]) + " != " + std::to_string(in[1][0]);
      out = Shape{in[0][0], in[1][1]};
      return "";
    case OpKind::kDotGeneral: {
      const Shape& lhs = in[0];
      const Shape& rhs = in[1];
      if (op.lhs_batching_dims.size() != op.rhs_batching_dims.size())
        return "batching dims differ in count: " + std::to_string(op.lhs_batching_dims.size()) +
               " != " + std::to_string(op.rhs_batching_dims.size());
      if (op.lhs_contracting_dims.size() != op.rhs_contracting_dims.size())
        return "contracting dims differ in count: " + std::to_string(op.lhs_contracting_dims.size()) +
               " != " + std::to_string(op.rhs_contracting_dims.size());
      IntList lhs_all = op.lhs_batching_dims, rhs_all = op.rhs_batching_dims;
      lhs_all.insert(lhs_all.end(), op.lhs_contracting_dims.begin(), op.lhs_contracting_dims.end());
      rhs_all.insert(rhs_all.end(), op.rhs_contracting_dims.begin(), op.rhs_contracting_dims.end());
      if (!valid_dims(lhs_all, lhs.size()))
        return "lhs dims " + int_list_text(lhs_all) + " are not distinct dims of rank " + std::to_string(lhs.size());
      if (!valid_dims(rhs_all, rhs.size()))
        return "rhs dims " + int_list_text(rhs_all) + " are not distinct dims of rank " + std::to_string(rhs.size());
      for (std::size_t k = 0; k < lhs_all.size(); ++k)
        if (lhs[lhs_all[k]] != rhs[rhs_all[k]])
          return std::string(k < op.lhs_batching_dims.size() ? "batching" : "contracting") +
                 " dimension sizes differ: " + std::to_string(lhs[lhs_all[k]]) +
                 " != " + std::to_string(rhs[rhs_all[k]]);
      Shape s;
      for (std::int64_t d : op.lhs_batching_dims) s.push_back(lhs[d]);
      auto free_dims = [&](const Shape& shape, const IntList& used) {
        for (std::size_t d = 0; d < shape.size(); ++d)
          if (std::find(used.begin(), used.end(), static_cast<std::int64_t>(d)) == used.end()) s.push_back(shape[d]);
      };
      free_dims(lhs, lhs_all);
      free_dims(rhs, rhs_all);
      out = s;
      return "";
    }
    case OpKind::kReduce: {
      if (!valid_dims(op.dimensions, in[0].size()))
        return "dimensions " + int_list_text(op.dimensions) + " are not distinct dims of rank " +
               std::to_string(in[0].size());
      Shape s;
      for (std::size_t d = 0; d < in[0].size(); ++d)
        if (std::find(op.dimensions.begin(), op.dimensions.end(), static_cast<std::int64_t>(d)) == op.dimensions.end())
          s.push_back(in[0][d]);
      out = s;
      return "";
    }
    case OpKind::kTranspose: {
      if (op.permutation.size() != in[0].size() || !valid_dims(op.permutation, in[0].size()))
        return "permutation " + int_list_text(op.permutation) + " is not a permutation of rank " +
               std::to_string(in[0].size());
      Shape s;
      for (std::int64_t d : op.permutation) s.push_back(in[0][d]);
      out = s;
      return "";
    }
    case OpKind::kBroadcastInDim: {
      if (!given) return "broadcast_in_dim needs the result shape";
      const Shape& r = *given_shape;
      if (op.broadcast_dimensions.size() != in[0].size())
        return "broadcast_dimensions has " + std::to_string(op.broadcast_dimensions.size()) +
               " entries but the operand rank is " + std::to_string(in[0].size());
      if (!valid_dims(op.broadcast_dimensions, r.size()))
        return "broadcast_dimensions " + int_list_text(op.broadcast_dimensions) + " are not distinct dims of rank " +
               std::to_string(r.size());
      for (std::size_t i = 0; i < in[0].size(); ++i)
        if (in[0][i] != 1 && in[0][i] != r[op.broadcast_dimensions[i]])
          return "operand dim " + std::to_string(i) + " has size " + std::to_string(in[0][i]) + " but result dim " +
                 std::to_string(op.broadcast_dimensions[i]) + " has size " +
                 std::to_string(r[op.broadcast_dimensions[i]]);
      out = r;
      return "";
    }
    case OpKind::kReshape:
      if (!given) return "reshape needs the result shape";
      // A saturated count cannot be compared (and the rule's products would overflow).
      if (element_count(in[0]) == std::numeric_limits<std::int64_t>::max())
        return "reshape of 2^63 or more elements is not supported";
      if (element_count(in[0]) != element_count(*given_shape))
        return "reshape changes the element count: " + std::to_string(element_count(in[0])) +
               " != " + std::to_string(element_count(*given_shape));
      out = (*given_shape);
      return "";
    case OpKind::kConcatenate: {
      std::size_t rank = in[0].size();
      if (static_cast<std::size_t>(op.dimension) >= rank)
        return "dimension " + std::to_string(op.dimension) + " out of range for rank " + std::to_string(rank);
      Shape s = in[0];
      for (std::size_t k = 1; k < in.size(); ++k) {
        bool same = in[k].size() == rank;
        for (std::size_t d = 0; same && d < rank; ++d)
          if (d != static_cast<std::size_t>(op.dimension) && in[k][d] != in[0][d]) same = false;
        if (!same)
          return "operand shapes differ outside dimension " + std::to_string(op.dimension) + ": " + shape_text(in[0]) +
                 " != " + shape_text(in[k]);
        if (__builtin_add_overflow(s[op.dimension], in[k][op.dimension], &s[op.dimension]))
          return "dimension " + std::to_string(op.dimension) + " of the result is too large: the operands' sizes " +
                 "add up past 2^63 - 1";
      }
      out = s;
      return "";
    }
    default:
      break;
  }
  return "unsupported kind";
}

std::string check_arity(const Op& op) {
  if (op.results.size() != 1) return "expected 1 result, found " + std::to_string(op.results.size());
  std::size_t want = 1;
  if (is_binary_elementwise(op.kind) || op.kind == OpKind::kDotGeneral || op.kind == OpKind::kMatmul) want = 2;
  if (op.kind == OpKind::kConcatenate) {
    if (op.operands.empty()) return "expected at least 1 operand, found 0";
  } else if (op.operands.size() != want) {
    return "expected " + std::to_string(want) + (want == 1 ? " operand" : " operands") + ", found " +
           std::to_string(op.operands.size());
  }
  return "";
}

}  // namespace shardplan::propagation
