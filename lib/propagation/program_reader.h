// Reading and validating a `propagate` input (docs/formats/propagate.md):
// every problem is reported, in the spec's check order, before anything runs.
#pragma once

#include <optional>
#include <string>

#include "propagation/program.h"

namespace shardplan::propagation {

// Options given on the command line; each one set wins over the input's "options".
struct OptionOverrides {
  std::optional<std::string> strategy, factor_propagation, format, module_dump_directory, output;
  std::optional<bool> conservative_propagation, keep_sharding_rules, no_op_priority_propagation;
};

// Reads `path` (JSON or YAML). Throws InputError with every problem found.
Program read_program(const std::string& path, const OptionOverrides& overrides = {});

}  // namespace shardplan::propagation
