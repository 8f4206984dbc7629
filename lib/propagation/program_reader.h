// Reading and validating a `propagate` input (docs/formats/propagate.md):
// every problem is reported, in the spec's check order, before anything runs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "propagation/program.h"

namespace shardplan::propagation {

// Options given on the command line; each one set wins over the input's "options".
struct OptionOverrides {
  std::optional<std::string> strategy, factor_propagation, format, module_dump_directory, output;
  std::optional<bool> conservative_propagation, keep_sharding_rules, no_op_priority_propagation;
};

// The attribute keys an op of `kind` takes besides name, kind, operands and results
// (one list for both readers: the positioned one and json_program_reader.h).
std::vector<std::string> op_attribute_keys(OpKind kind);

// Reads `path` (JSON or YAML; "-" = stdin). Throws InputError with every problem found.
Program read_program(const std::string& path, const OptionOverrides& overrides = {});
// The same for `text` as if it were the content of `file` (the name picks JSON or YAML).
Program parse_program(const std::string& file, std::string_view text, const OptionOverrides& overrides = {});

}  // namespace shardplan::propagation
