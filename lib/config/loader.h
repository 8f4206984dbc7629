// Loading and validating input files (docs/formats/). Every function either
// returns fully typed, validated structs or throws InputError carrying EVERY
// problem found in the file (file:line:col, key path, expected vs found, and a
// "did you mean" where one helps). Nothing is silently fixed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "config/config.h"

namespace shardplan {

// What a file holds; recognised from its top-level keys unless forced.
enum class InputKind { kModel, kTopology, kPlanner, kCase };

inline constexpr NameTable<InputKind, 4> kInputKindNames{{
    {InputKind::kModel, "model", "model description: modules, tables, dense part, constraints"},
    {InputKind::kTopology, "topology", "world size, capacities, bandwidths"},
    {InputKind::kPlanner, "planner", "proposers, partitioner, storage reservation"},
    {InputKind::kCase, "case", "one file with model, topology and planner keys"},
}};

ModelConfig load_model(const std::string& path);
TopologyConfig load_topology(const std::string& path);
PlannerOptions load_planner(const std::string& path);
// A one-file case (`--config case.json`).
PlanningInput load_case(const std::string& path);
// load_case on text already in memory (the Python binding's dict input); `file`
// names it in messages and its extension picks JSON or YAML.
PlanningInput load_case_text(const std::string& file, std::string_view text);
// The three-file form; planner options come from the planner file if given, else
// from the model file's `planner:` key, else defaults.
PlanningInput load_inputs(const std::string& model_path, const std::string& topology_path,
                          const std::optional<std::string>& planner_path);

// `shardplan validate`: checks one file; returns its kind on success and throws
// InputError (all problems) otherwise. `forced` skips kind detection.
InputKind validate_file(const std::string& path, std::optional<InputKind> forced);

// validate_file on text already in memory; `file` names it in messages and its
// extension picks JSON or YAML (used by tests and by tools that generate inputs).
InputKind validate_text(const std::string& file, std::string_view text, std::optional<InputKind> forced);

}  // namespace shardplan
