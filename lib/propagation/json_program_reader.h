// A fast path for big, valid JSON programs: nlohmann's parser straight into a
// Program, no YAML node tree (which cost most of the time and memory at 10^5 ops).
#pragma once

#include <optional>
#include <string_view>

#include "propagation/program.h"
#include "propagation/program_reader.h"

namespace shardplan::propagation {

// The program in `text` when it is JSON that reads without a single problem;
// nullopt otherwise: the positioned reader (program_reader.h) then reports them.
std::optional<Program> read_valid_json_program(std::string_view text, const OptionOverrides& overrides);

}  // namespace shardplan::propagation
