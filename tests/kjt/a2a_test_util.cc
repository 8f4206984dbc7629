#include "kjt/a2a_test_util.h"

#include <catch2/catch.hpp>

#include "config/config_test_util.h"

namespace shardplan::testing {

RunResult run_a2a(const std::string& name, const std::string& input, const std::string& extra) {
  std::string path = write_scratch(name, input);
  return run_shardplan("a2a --input '" + path + "' " + extra);
}

void check_fields(const nlohmann::json& actual, const nlohmann::json& expected, const std::string& path) {
  if (expected.is_object()) {
    REQUIRE(actual.is_object());
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      std::string field = path.empty() ? it.key() : path + "." + it.key();
      INFO("field " << field);
      REQUIRE(actual.contains(it.key()));
      check_fields(actual[it.key()], it.value(), field);
    }
    return;
  }
  if (expected.is_array() && actual.is_array() && expected.size() == actual.size() && !expected.empty() &&
      expected.front().is_object()) {
    for (std::size_t i = 0; i < expected.size(); ++i)
      check_fields(actual[i], expected[i], path + "[" + std::to_string(i) + "]");
    return;
  }
  INFO("field " << path);
  CHECK(actual == expected);
}

}  // namespace shardplan::testing
