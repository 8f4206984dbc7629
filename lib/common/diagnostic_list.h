// Printing a list of diagnostics with a cap, so that an input with a million
// problems prints a screenful and a count instead of a million lines.
#pragma once

#include <cstddef>
#include <ostream>
#include <vector>

#include "common/error.h"

namespace shardplan {

// Writes "error: <diagnostic>" for the first `max_printed` diagnostics, then
// "error: ... and N more" when some were left out.
void print_diagnostics(std::ostream& out, const std::vector<Diagnostic>& diagnostics, std::size_t max_printed);

}  // namespace shardplan
