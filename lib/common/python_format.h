// Python's number formatting, reproduced exactly: torchrec's texts (EmbeddingStats,
// error messages) print floats with repr(), round(x, n) and format specs, and
// shardplan must print the same characters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardplan {

// repr(x) of a Python float: shortest round-trip digits, fixed notation when the
// decimal exponent is in [-4, 16), else "1.5e-05"/"1e+16"; integral values end in ".0".
std::string python_repr(double x);

// round(x, ndigits) of a Python float: correctly rounded to ndigits decimals (ties
// to even on the exact binary value), returned as the nearest double.
double python_round(double x, int ndigits);

// round(x) of a Python float: the nearest integer, ties to even.
std::int64_t python_round_int(double x);

// f"{x:.{precision}f"}.
std::string format_fixed(double x, int precision);

// f"{x:.{precision}g}" (trailing zeros removed, exponent outside [-4, precision)).
std::string format_general(double x, int precision);

// f"{x:.0%}": x * 100 in floating point, then no decimals and a '%'.
std::string format_percent0(double x);

// str(x) of a Python list of ints: "[0, 1, 5]".
std::string python_int_list(const std::vector<int>& values);

// f"{text: ^{width}}": centred, the odd pad character going to the right.
std::string pad_center(const std::string& text, std::size_t width);
// f"{text: <{width}}".
std::string pad_left_aligned(const std::string& text, std::size_t width);
// f"{text: >{width}}".
std::string pad_right_aligned(const std::string& text, std::size_t width);

}  // namespace shardplan
