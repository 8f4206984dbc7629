// The subcommand table: one row per subcommand drives dispatch, the --help
// listing and "did you mean". Adding a subcommand = one app/<name>_command.cc
// defining its setup function + one row in commands.cc.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace shardplan::app {

// What a subcommand does once its options are parsed: returns the exit code
// (ExitCode), throws InputError for bad input or usage.
using CommandRun = std::function<int()>;

struct Command {
  std::string_view name;
  std::string_view description;  // one line, shown by `shardplan --help`
  std::string_view example;      // one typical invocation
  // Declares the subcommand's options on `sub` and returns what runs it.
  CommandRun (*setup)(CLI::App& sub);
};

// Every subcommand, in the order `--help` lists them.
const std::vector<Command>& commands();

// One setup function per subcommand (app/<name>_command.cc).
CommandRun setup_validate(CLI::App& sub);
CommandRun setup_plan(CLI::App& sub);
CommandRun setup_enumerate(CLI::App& sub);
CommandRun setup_explain(CLI::App& sub);
CommandRun setup_sweep(CLI::App& sub);
CommandRun setup_a2a(CLI::App& sub);
CommandRun setup_pipeline(CLI::App& sub);
CommandRun setup_propagate(CLI::App& sub);
CommandRun setup_help(CLI::App& sub);
CommandRun setup_completion(CLI::App& sub);
CommandRun setup_show(CLI::App& sub);
CommandRun setup_diff(CLI::App& sub);

}  // namespace shardplan::app
