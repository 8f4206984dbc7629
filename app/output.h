// Where a subcommand's main output goes: stdout, or a file written atomically.
#pragma once

#include <string>

#include "common/phase_times.h"

namespace shardplan::app {

// Writes `text` to stdout when `path` is empty or "-", else atomically to `path`.
void write_output(const std::string& path, const std::string& text);

// `--timings`: each phase's wall time and their total, on stderr.
void print_timings(const PhaseTimes& phases);

}  // namespace shardplan::app
