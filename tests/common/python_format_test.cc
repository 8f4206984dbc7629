// Python's float formatting as torchrec's texts use it (repr, round, format specs).
#include "common/python_format.h"

#include <catch2/catch.hpp>

namespace shardplan {

TEST_CASE("python_repr prints the shortest round-trip digits in Python's layout", "[stats][python_format]") {
  CHECK(python_repr(0.0) == "0.0");
  CHECK(python_repr(-0.0) == "-0.0");
  CHECK(python_repr(2.0) == "2.0");
  CHECK(python_repr(0.1) == "0.1");
  CHECK(python_repr(1.0 / 3) == "0.3333333333333333");
  CHECK(python_repr(123.456) == "123.456");
  CHECK(python_repr(-42.5) == "-42.5");
  // Fixed notation up to 16 integer digits, exponent from 1e16 on.
  CHECK(python_repr(1e15) == "1000000000000000.0");
  CHECK(python_repr(1e16) == "1e+16");
  CHECK(python_repr(1.25e17) == "1.25e+17");
  // Fixed down to 1e-4, exponent (two digits at least) below.
  CHECK(python_repr(0.0001) == "0.0001");
  CHECK(python_repr(1.5e-05) == "1.5e-05");
  CHECK(python_repr(5e-324) == "5e-324");
  CHECK(python_repr(1.7976931348623157e308) == "1.7976931348623157e+308");
}

TEST_CASE("python_round rounds the exact binary value, ties to even", "[stats][python_format]") {
  // 2.675 is stored as 2.67499999999999982236431605997495353221893310546875.
  CHECK(python_repr(python_round(2.675, 2)) == "2.67");
  // 0.125 and 0.375 are exact ties: to the even last digit.
  CHECK(python_repr(python_round(0.125, 2)) == "0.12");
  CHECK(python_repr(python_round(0.375, 2)) == "0.38");
  CHECK(python_repr(python_round(0.0004, 3)) == "0.0");
  CHECK(python_repr(python_round(1.96736, 3)) == "1.967");
  CHECK(python_round_int(2.5) == 2);
  CHECK(python_round_int(3.5) == 4);
  CHECK(python_round_int(0.5) == 0);
  CHECK(python_round_int(7.49) == 7);
}

TEST_CASE("format specs behave like Python's f-strings", "[stats][python_format]") {
  CHECK(format_fixed(0.0904, 3) == "0.090");
  CHECK(format_fixed(12.345678, 2) == "12.35");
  // 0.145 * 100 = 14.499999999999998 in floating point, so '14%'.
  CHECK(format_percent0(0.145) == "14%");
  CHECK(format_percent0(0.005) == "0%");  // 0.5 exactly: ties to even
  CHECK(format_percent0(0.015) == "2%");  // 1.5 exactly: ties to even
  CHECK(format_general(218.33, 3) == "218");
  CHECK(format_general(83.12, 3) == "83.1");
  CHECK(format_general(0.0, 3) == "0");
  CHECK(format_general(1234.5, 3) == "1.23e+03");
  CHECK(python_int_list({}) == "[]");
  CHECK(python_int_list({0, 3, 12}) == "[0, 3, 12]");
  CHECK(pad_center("ab", 5) == " ab  ");  // odd pad goes right
  CHECK(pad_left_aligned("ab", 4) == "ab  ");
  CHECK(pad_right_aligned("ab", 4) == "  ab");
  CHECK(pad_center("abcdef", 3) == "abcdef");
}

}  // namespace shardplan
