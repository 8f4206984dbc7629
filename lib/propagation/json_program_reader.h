// A fast path for big, valid JSON programs: nlohmann's SAX events straight into a
// Program, with no node tree at all (yaml-cpp's cost seconds and most of a gigabyte
// at 10^5 ops, nlohmann's own DOM half of the remaining reading time).
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
