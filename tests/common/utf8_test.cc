#include <catch2/catch.hpp>

#include "common/utf8.h"

using shardplan::first_invalid_utf8;

TEST_CASE("first_invalid_utf8 finds the first byte that is not UTF-8", "[bad-input]") {
  CHECK(first_invalid_utf8("plain ascii") == std::nullopt);
  CHECK(first_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == std::nullopt);  // é € 😀
  CHECK(first_invalid_utf8("a\xff") == 1u);
  CHECK(first_invalid_utf8("ab\xc3") == 2u);            // truncated sequence
  CHECK(first_invalid_utf8("\xc0\xaf") == 0u);          // overlong '/'
  CHECK(first_invalid_utf8("x\xed\xa0\x80") == 1u);     // UTF-16 surrogate
  CHECK(first_invalid_utf8("\xf4\x90\x80\x80") == 0u);  // past U+10FFFF
  CHECK(first_invalid_utf8("\xe2\x28\xa1") == 0u);      // bad continuation
}
