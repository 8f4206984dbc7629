#include "common/python_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace shardplan {

namespace {

std::string printf_double(const char* format, int precision, double x) {
  int n = std::snprintf(nullptr, 0, format, precision, x);
  std::vector<char> buf(static_cast<std::size_t>(n) + 1);
  std::snprintf(buf.data(), buf.size(), format, precision, x);
  return std::string(buf.data(), static_cast<std::size_t>(n));
}

// Python spells the special values without a sign for nan.
std::string non_finite(double x) {
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

}  // namespace

std::string python_repr(double x) {
  if (!std::isfinite(x)) return non_finite(x);
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  // std::to_chars without a precision gives the shortest round-trip digits, the
  // same digits as Python's repr (both pick the closest of the shortest).
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  auto e_pos = sci.find('e');
  std::string mantissa = sci.substr(0, e_pos);
  int exponent = std::atoi(sci.c_str() + e_pos + 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  const int ndigits = static_cast<int>(digits.size());
  const int decpt = exponent + 1;  // value = 0.DIGITS * 10^decpt
  // Python's float_repr_style 'r': fixed notation iff -4 < decpt <= 16.
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) return sign + "0." + std::string(-decpt, '0') + digits;
    if (decpt >= ndigits) return sign + digits + std::string(decpt - ndigits, '0') + ".0";
    return sign + digits.substr(0, decpt) + "." + digits.substr(decpt);
  }
  std::string out = sign + digits.substr(0, 1);
  if (ndigits > 1) out += "." + digits.substr(1);
  int e = decpt - 1;
  out += e < 0 ? "e-" : "e+";
  std::string e_digits = std::to_string(std::abs(e));
  if (e_digits.size() < 2) e_digits = "0" + e_digits;
  return out + e_digits;
}

double python_round(double x, int ndigits) {
  if (!std::isfinite(x) || x == 0) return x;
  // glibc's printf rounds the exact binary value correctly (ties to even), as
  // CPython's round() does through its dtoa; parsing back gives the same double.
  std::string text = printf_double("%.*f", ndigits, x);
  return std::strtod(text.c_str(), nullptr);
}

std::int64_t python_round_int(double x) {
  return static_cast<std::int64_t>(std::nearbyint(x));  // default mode: ties to even
}

std::string format_fixed(double x, int precision) {
  if (!std::isfinite(x)) return non_finite(x);
  return printf_double("%.*f", precision, x);
}

std::string format_general(double x, int precision) {
  if (!std::isfinite(x)) return non_finite(x);
  return printf_double("%.*g", precision, x);
}

std::string format_percent0(double x) { return format_fixed(x * 100, 0) + "%"; }

std::string python_int_list(const std::vector<int>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

std::string pad_center(const std::string& text, std::size_t width) {
  if (text.size() >= width) return text;
  std::size_t pad = width - text.size();
  std::size_t left = pad / 2;  // CPython gives the odd character to the right
  return std::string(left, ' ') + text + std::string(pad - left, ' ');
}

std::string pad_left_aligned(const std::string& text, std::size_t width) {
  if (text.size() >= width) return text;
  return text + std::string(width - text.size(), ' ');
}

std::string pad_right_aligned(const std::string& text, std::size_t width) {
  if (text.size() >= width) return text;
  return std::string(width - text.size(), ' ') + text;
}

}  // namespace shardplan
