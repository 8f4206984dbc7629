// Where a subcommand's main output goes: stdout, or a file written atomically.
#pragma once

#include <string>

namespace shardplan::app {

// Writes `text` to stdout when `path` is empty or "-", else atomically to `path`.
void write_output(const std::string& path, const std::string& text);

}  // namespace shardplan::app
