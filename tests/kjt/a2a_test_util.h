// Helpers for the a2a tests: running the real binary on an input text, and
// comparing parsed JSON field by field (so a failure names the field).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace shardplan::testing {

// Writes `input` to the scratch file `name` and runs `shardplan a2a --input FILE EXTRA`.
RunResult run_a2a(const std::string& name, const std::string& input, const std::string& extra = "");

// CHECKs that every field of `expected` (recursively through objects) equals the
// same field of `actual`; `path` names the field in failure messages.
void check_fields(const nlohmann::json& actual, const nlohmann::json& expected, const std::string& path = "");

}  // namespace shardplan::testing
