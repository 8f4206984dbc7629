// Doubles as unsigned integers in the same order, so that a key of (double, tie)
// is one unsigned 128-bit number and comparing two keys is one comparison, without
// the branches the branch predictor cannot guess (device queue, host order).
#pragma once

#include <cstdint>
#include <cstring>

namespace shardplan {

using OrderKey = unsigned __int128;

// x < y exactly when double_order(x) < double_order(y), and equal doubles (-0 and +0
// included) map to the same number, for every double but NaN, which maps above
// +infinity (only just: below any key built from ~0 in its upper half).
inline std::uint64_t double_order(double x) {
  if (x == 0) x = 0;  // -0 == +0
  if (x != x) return ~std::uint64_t{0} - 1;
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63);
}

// The key of (x, tie): ordered by x, then by tie.
inline OrderKey order_key(double x, std::uint64_t tie) { return static_cast<OrderKey>(double_order(x)) << 64 | tie; }

}  // namespace shardplan
