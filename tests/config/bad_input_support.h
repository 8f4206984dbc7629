// Helpers for the adversarial-input tests: run the real binary on scratch files
// and read its stderr as lines with the scratch directory stripped.
#pragma once

#include <string>
#include <vector>

namespace shardplan::testing {

// What one run of the binary left: exit code and stderr lines ("error: m.yaml:1:2: ...").
struct BadInputRun {
  int exit_code = -1;
  std::vector<std::string> errors;
};

// Runs `shardplan ARGS` with the scratch directory as the working directory, so
// file names in messages are the bare names the test wrote.
BadInputRun run_in_scratch(const std::string& args);

// A two-rank topology and a one-table model, written once to the scratch directory.
std::string small_topology();
std::string small_model();

}  // namespace shardplan::testing
