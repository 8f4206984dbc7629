// Access to torchrec's reference cases in ../shared/cases (read at test time,
// never copied into the repo). Outside CI a missing folder skips the parity
// tests with a loud message; with CI=true it is a failure.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "planner/types.h"

namespace shardplan::testing {

struct GoldenCase {
  std::string name;         // e.g. "single-table-ws1"
  std::string case_path;    // .../case-NAME.json
  std::string golden_path;  // .../case-NAME.golden.json
};

// The directory holding the cases, or nullopt when it is absent. With CI=true an
// absent directory FAILs the calling test; otherwise a loud WARN is printed.
std::optional<std::string> cases_dir();

// Records that this run skipped a parity check for lack of ../shared/cases (or another
// optional input); the test binary then exits with $SHARDPLAN_SKIP_RETURN_CODE when set
// and nothing failed, so CTest lists the test as "Skipped" rather than "Passed".
void note_parity_skipped();

// Whether note_parity_skipped() was called in this run.
bool parity_skipped();

// Every case-*.json with a golden beside it under cases_dir() (sorted by name);
// `include_scale` adds those of cases_dir()/scale that have goldens.
std::vector<GoldenCase> golden_cases(bool include_scale = false);

// The parsed golden of a case.
nlohmann::json load_golden(const GoldenCase& c);

// The golden's `options` (reading the gzip sidecar named by `options_file` when
// present), each expanded from the `profiles` shard format when used.
nlohmann::json golden_options(const GoldenCase& c, const nlohmann::json& golden);

// Expands a `shards` value (full list, or {profiles, shards, row_fields}) into
// a list of full shard objects {offsets, sizes, perf, storage(, rank)}.
nlohmann::json expand_shards(const nlohmann::json& shards);

// A ShardingOption built from one golden option entry (shards with estimates;
// module_index/table_index are not known here and stay 0).
ShardingOption option_from_golden(const nlohmann::json& option);

// A golden [rows, cols] pair (sizes or offsets); throws unless it has exactly two ints.
ShardDims shard_dims(const nlohmann::json& pair);

// The golden's resolved `topology` object (capacities before reservation).
Topology topology_from_golden(const nlohmann::json& topology);

// Runs `compare` (returning the first difference, or "" on a match) on every case;
// each mismatch or exception FAILs (and the loop goes on), then the count of
// matching cases is printed as "<what>: N/M cases match" and must be all of them.
void check_every_case(const std::vector<GoldenCase>& cases, const std::string& what,
                      const std::function<std::string(const GoldenCase&)>& compare);

// The lines of `text`, without their '\n'.
std::vector<std::string> split_lines(const std::string& text);

// Relative comparison used by the parity tests: |a-b| <= rel*max(|a|,|b|), or
// both within 1e-15 of zero (where torchrec has 0).
bool close_enough(double a, double b, double rel = 1e-9);

}  // namespace shardplan::testing
