#include "propagation/program.h"

#include <limits>

namespace shardplan::propagation {

bool is_unary_elementwise(OpKind kind) { return kind >= OpKind::kNegate && kind <= OpKind::kCopy; }
bool is_binary_elementwise(OpKind kind) { return kind >= OpKind::kAdd && kind <= OpKind::kPower; }

std::string shape_text(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::int64_t saturating_product(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::numeric_limits<std::int64_t>::max();
  return out;
}

std::int64_t element_count(const Shape& shape) {
  std::int64_t count = 1;
  for (std::int64_t d : shape) count = saturating_product(count, d);
  return count;
}

}  // namespace shardplan::propagation
