// Where a subcommand's main output goes: stdout, or a file written atomically.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/phase_times.h"

namespace shardplan::app {

// Writes `text` to stdout when `path` is empty or "-", else atomically to `path`.
void write_output(const std::string& path, const std::string& text);

// The same for a text made in pieces, too large to hold whole: produce(emit)
// calls emit with consecutive pieces. A file gets them through its temporary
// file, renamed into place once produce returns; when produce throws, the
// temporary file is removed and nothing is left at `path`. Stdout gets each
// piece as it comes.
void write_output_in_pieces(const std::string& path,
                            const std::function<void(const std::function<void(std::string_view)>&)>& produce);

// An earlier run's output at `path` must not pass for a failed run's: a regular
// file (or a symlink) there is removed. Devices and pipes (-o /dev/null), stdout
// ("" or "-") and a path that is one of `inputs` are left alone.
void remove_stale_output(const std::string& path, const std::vector<std::string>& inputs);

// Standard input holds one input: "-" for two of `inputs` is a usage error, found
// before either is read (throws InputError).
void check_one_stdin_input(const std::vector<std::string>& inputs);

// Runs `run`; when it throws, removes a stale output at `path` (as above) first.
template <typename Run>
int run_removing_stale_output(const std::string& path, const std::vector<std::string>& inputs, Run run) {
  try {
    check_one_stdin_input(inputs);
    return run();
  } catch (...) {
    remove_stale_output(path, inputs);
    throw;
  }
}

// `--timings`: each phase's wall time and their total, on stderr.
void print_timings(const PhaseTimes& phases);

}  // namespace shardplan::app
