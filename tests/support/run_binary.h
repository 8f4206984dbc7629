// Runs the real shardplan binary for the output tests.
#pragma once

#include <string>

namespace shardplan::testing {

// The source tree (configs/, examples/, schemas/, README.md), set by CMake.
inline const std::string kSourceDir = SHARDPLAN_SOURCE_DIR;
// The README's example model: configs/quickstart.json.
inline const std::string kQuickstartConfig = kSourceDir + "/configs/quickstart.json";

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `shardplan ARGS` through the shell (args are trusted test strings) and
// captures its exit code, stdout and stderr.
RunResult run_shardplan(const std::string& args);

// run_shardplan with stdin read from the file `stdin_path`.
RunResult run_shardplan_with_stdin(const std::string& args, const std::string& stdin_path);

// A file's whole content ("" when it does not exist).
std::string slurp(const std::string& path);

}  // namespace shardplan::testing
