// Helpers for the pipeline tests: inputs written to scratch files, the real
// binary run on them, and JSON compared with the spec's 1e-9 float tolerance.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/run_binary.h"

namespace shardplan::testing {

// Writes `content` to scratch file `name` and runs `shardplan pipeline --input` on it.
RunResult run_pipeline(const std::string& name, const std::string& content, const std::string& extra_args = "");

// Every difference between `expected` and `actual` ("path: expected X, found Y"):
// numbers within relative 1e-9, everything else exact; keys of `actual` missing
// from `expected` are ignored only when `subset` is true.
std::vector<std::string> json_differences(const nlohmann::json& expected, const nlohmann::json& actual,
                                          bool subset = false);

// stderr's lines with the scratch directory removed from file names.
std::vector<std::string> error_lines(const RunResult& r);

}  // namespace shardplan::testing
