// Sums and products of input-controlled 64-bit integers that either fit or say
// they do not (no wrap-around). Readers turn a nullopt into a positioned
// "too large" error.
#pragma once

#include <cstdint>
#include <optional>

namespace shardplan {

inline std::optional<std::int64_t> add_or_overflow(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<std::int64_t> mul_or_overflow(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

}  // namespace shardplan
