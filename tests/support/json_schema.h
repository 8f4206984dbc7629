// A small JSON-Schema (draft 2020-12 subset) validator for the tests that keep
// schemas/*.schema.json true against the loader and the writers.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardplan::testing {

// schemas/NAME, parsed.
nlohmann::json load_schema(const std::string& name);

// Every way `value` breaks `schema`, as "path: problem" lines; empty when valid.
std::vector<std::string> schema_errors(const nlohmann::json& schema, const nlohmann::json& value);

}  // namespace shardplan::testing
