// The input flags shared by the subcommands that plan (plan, enumerate, ...):
// --model M --topology T [--planner P]  |  --config CASE.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/config.h"

namespace shardplan::app {

struct InputOptions {
  std::string model;
  std::string topology;
  std::string planner;
  std::string config;
};

// The files `options` names (some may be ""), for remove_stale_output (output.h).
inline std::vector<std::string> input_paths(const InputOptions& options) {
  return {options.model, options.topology, options.planner, options.config};
}

// Declares --model, --topology, --planner and --config on `sub` (--config excludes the others).
void add_input_options(CLI::App& sub, InputOptions& options);

// Loads what the flags name. Throws InputError for a bad combination of flags
// (e.g. --model without --topology) and for every problem in the files.
PlanningInput load_input_options(const InputOptions& options);

}  // namespace shardplan::app
