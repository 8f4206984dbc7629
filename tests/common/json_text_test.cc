// The direct JSON writers must write what nlohmann's dump(2) writes for the same
// values: the plan file is compared byte for byte with earlier versions.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_text.h"

namespace shardplan::testing {
namespace {

// nlohmann's dump(2) of `value` as it reads `indent` spaces deep (every line but
// the first moved right), the reference append_reindented_json must meet.
std::string nested_dump(const nlohmann::ordered_json& value, int indent) {
  std::string out;
  for (char c : value.dump(2)) {
    out += c;
    if (c == '\n') out.append(static_cast<std::size_t>(indent), ' ');
  }
  return out;
}

TEST_CASE("json text: numbers and strings as nlohmann writes them", "[output][json-text]") {
  for (double x : {0.0, -0.0, 1.0, 0.1, 1.0 / 3.0, 1e-5, 1e20, 1e300, -2.5, 123456789.125, 5e-324,
                   std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    std::string out;
    append_json_double(out, x);
    CHECK(out == nlohmann::ordered_json(x).dump());
  }
  for (std::int64_t x :
       {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1} << 62, std::numeric_limits<std::int64_t>::min()}) {
    std::string out;
    append_json_int(out, x);
    CHECK(out == nlohmann::ordered_json(x).dump());
  }
  for (const std::string text :
       {"", "rank:3/cuda:3", "q\"uote", "back\\slash", "tab\tnew\nline", "caf\u00e9", "\x7f"}) {
    std::string out;
    append_json_string(out, text);
    CHECK(out == nlohmann::ordered_json(text).dump());
  }
}

TEST_CASE("json text: a compact dump re-indented is the indented dump", "[output][json-text]") {
  const auto value = nlohmann::ordered_json::parse(R"({"model": {"name": "a,b:{c}[d]", "esc": "q\"x\\y\n",
      "empty_list": [], "empty_object": {}, "list": [1, -2.5, 1e-05, null, true, false, [[]], [{}]],
      "nested": {"x": {"y": {"z": [0.1, "s"]}}}}, "n": 0})");
  for (int indent : {0, 2, 6}) {
    std::string out;
    append_reindented_json(out, value.dump(), indent);
    CHECK(out == nested_dump(value, indent));
  }
  std::string scalar;
  append_reindented_json(scalar, nlohmann::ordered_json(3.5).dump(), 4);
  CHECK(scalar == "3.5");
}

}  // namespace
}  // namespace shardplan::testing
