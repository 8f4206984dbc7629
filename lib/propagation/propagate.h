// The `propagate` subcommand's work, end to end: run the chosen strategy on a
// validated program (dumping each iteration when asked) and render the result.
#pragma once

#include <string>

#include "common/phase_times.h"
#include "propagation/program.h"

namespace shardplan::propagation {

// Runs `program.options.strategy`, writes the dumps of `module_dump_directory`, and
// returns the result in `program.options.format`; `times` (optional) gets the phases
// "propagate" and "render". Throws PropagationDidNotConverge.
std::string propagate_and_render(const Program& program, PhaseTimes* times = nullptr);

}  // namespace shardplan::propagation
