// A canonical serialisation of what one planning run reads (model, topology and
// planner options after loading and overrides), so that two runs can tell whether
// they planned the same inputs whatever the files' formatting, key order, YAML or
// JSON, or which flags set which value. The plan file carries its SHA-256.
#pragma once

#include <string>

#include "config/config.h"

namespace shardplan {

// One compact JSON text of every field of `input` that planning reads, in a fixed
// order, enums by name, unset optionals as null, and the values torchrec reads as
// "not given" (batch_size 0, local_world_size 0, min_partition 0, empty lists) as
// what leaving them out means. Excludes file names and positions
// (`source`, SourcePos) and the model file's own `planner:` key, which is already
// merged into `input.planner`.
std::string canonical_input_text(const PlanningInput& input);

// sha256_hex(canonical_input_text(input)).
std::string inputs_sha256(const PlanningInput& input);

}  // namespace shardplan
