// The axis algebra and sharding text of docs/formats/propagate.md, case by case.
#include <catch2/catch.hpp>

#include "propagation/axis.h"
#include "propagation/sharding.h"

namespace {

using namespace shardplan::propagation;

// Axis 0 of size `total`, the piece (pre, size).
AxisRef piece(std::int64_t pre, std::int64_t size, std::int64_t total, int axis = 0) {
  return AxisRef{axis, pre, size, total};
}
AxisRef whole(std::int64_t total, int axis = 0) { return AxisRef{axis, 1, total, total}; }

}  // namespace

TEST_CASE("contains, prefix and overlaps follow §2", "[propagate]") {
  CHECK(contains(whole(4), piece(1, 2, 4)));
  CHECK(contains(piece(1, 4, 8), piece(2, 2, 8)));
  CHECK_FALSE(contains(piece(2, 2, 4), piece(1, 2, 4)));
  CHECK_FALSE(contains(piece(1, 2, 4), whole(4)));
  CHECK_FALSE(contains(whole(4, 0), whole(4, 1)));

  CHECK(is_prefix(piece(1, 2, 4), whole(4)));
  CHECK_FALSE(is_prefix(piece(2, 2, 4), whole(4)));

  CHECK_FALSE(overlaps(piece(1, 2, 4), piece(2, 2, 4)));
  CHECK(overlaps(piece(1, 4, 8), piece(2, 2, 8)));
  CHECK(overlaps(whole(8), piece(4, 2, 8)));
  CHECK_FALSE(overlaps(whole(2, 0), whole(2, 1)));
}

TEST_CASE("coexist and cut follow §2", "[propagate]") {
  CHECK(can_coexist(piece(1, 2, 8), piece(2, 4, 8)));
  CHECK(can_coexist(piece(1, 4, 8), piece(2, 4, 8)));
  CHECK_FALSE(can_coexist(piece(1, 4, 12), piece(3, 2, 12)));  // 4 % 3 != 0

  CHECK(cut(whole(4), piece(2, 2, 4)) == piece(1, 2, 4));        // the prefix before y
  CHECK(cut(piece(2, 2, 4), piece(1, 2, 4)) == piece(2, 2, 4));  // no overlap: unchanged
  CHECK(cut(piece(1, 4, 8), piece(2, 2, 8)) == piece(1, 2, 8));
  CHECK_FALSE(cut(piece(2, 2, 4), whole(4)).has_value());
  CHECK_FALSE(cut(piece(1, 4, 12), piece(3, 2, 12)).has_value());  // cannot coexist
  CHECK(cut(whole(2, 0), whole(2, 1)) == whole(2, 0));             // other axis
  CHECK_FALSE(cut_all(whole(4), {piece(4, 1, 4), whole(4)}).has_value());
}

TEST_CASE("append merges consecutive pieces of one axis", "[propagate]") {
  AxisList list{piece(1, 2, 4)};
  append_axis(list, piece(2, 2, 4));
  REQUIRE(list.size() == 1);
  CHECK(list[0].full());

  AxisList gap{piece(1, 2, 8)};
  append_axis(gap, piece(4, 2, 8));
  CHECK(gap.size() == 2);

  AxisList two{whole(2, 1)};
  append_axis(two, whole(2, 0));
  CHECK(two.size() == 2);
}

TEST_CASE("prefix status of axis lists follows §2", "[propagate]") {
  AxisRef a = whole(2, 0), b = whole(2, 1), c = whole(2, 2);
  CHECK(prefix_status({}, {}) == PrefixStatus::kEqual);
  CHECK(prefix_status({}, {a}) == PrefixStatus::kStrictPrefix);
  CHECK(prefix_status({a, b}, {a}) == PrefixStatus::kNotPrefix);
  CHECK(prefix_status({a}, {a}) == PrefixStatus::kEqual);
  CHECK(prefix_status({a}, {a, b}) == PrefixStatus::kStrictPrefix);
  CHECK(prefix_status({piece(1, 2, 4)}, {whole(4)}) == PrefixStatus::kStrictPrefix);
  CHECK(prefix_status({b}, {a}) == PrefixStatus::kNotPrefix);
  CHECK(prefix_status({a, b}, {a, c}) == PrefixStatus::kNotPrefix);
}

TEST_CASE("sharding text parses and prints in canonical form", "[propagate]") {
  Mesh mesh{{{"a", 4}, {"b", 4}, {"c", 2}}};
  std::vector<std::string> problems;
  auto written = parse_sharding_text(R"([{"a", ?}, {b:(2)2}p1], replicated={c})");
  REQUIRE(written);
  auto sharding = resolve_sharding(*written, mesh, problems);
  REQUIRE(sharding);
  CHECK(problems.empty());
  CHECK(sharding->dims[1].priority == 1);
  CHECK(sharding_text(*sharding, mesh) == "[{a, ?}, {b:(2)2}], replicated={c}");
  CHECK(sharding_text(*sharding, mesh, true) == "[{a, ?}, {b:(2)2}p1], replicated={c}");

  auto whole_piece = parse_sharding_text("[{a:(1)4}, {}]");
  REQUIRE(whole_piece);
  CHECK(sharding_text(*resolve_sharding(*whole_piece, mesh, problems), mesh) == "[{a}, {}]");
  CHECK(sharding_text(open_sharding(0), mesh) == "[]");

  for (const char* bad :
       {"", "[", "[{a}", "[{a},]", "[{a} {b}]", "[{?, a}]", "[{a}], replicated=", "[{a:(2}]", "[{a}]x"})
    CHECK_FALSE(parse_sharding_text(bad).has_value());
}
