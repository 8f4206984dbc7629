// Checks of the command line that CLI11 words poorly or not at all: unknown flag
// names (with "did you mean"), and numbers given to integer and number flags.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace shardplan::app {

// Throws InputError naming the first flag in `args` that `app` does not declare, with
// the closest declared flag when one is near: "--partitoner: unknown flag of
// 'shardplan plan', did you mean '--partitioner'?" (`command` is "shardplan plan").
// Values such as "-" (stdin) and negative numbers are not flags; "--" ends the flags.
void check_flag_names(const CLI::App& app, const std::string& command, const std::vector<std::string>& args);

// Adds a check to every option of `app` and its subcommands whose type name is N
// (an integer), X (a number) or RATIO ("5%" or "0.05", parse_ratio), so that `--batch-size 1.5` says
// "--batch-size: expected an integer, found '1.5'" instead of CLI11's conversion text.
void add_number_checks(CLI::App& app);

}  // namespace shardplan::app
