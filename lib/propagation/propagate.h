// The `propagate` subcommand's work, end to end: run the chosen strategy on a
// validated program (dumping each iteration when asked) and render the result.
#pragma once

#include <string>

#include "propagation/program.h"

namespace shardplan::propagation {

// Runs `program.options.strategy`, writes the dumps of `module_dump_directory`, and
// returns the result in `program.options.format`. Throws PropagationDidNotConverge.
std::string propagate_and_render(const Program& program);

}  // namespace shardplan::propagation
