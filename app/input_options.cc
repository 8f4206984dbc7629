#include "input_options.h"

#include "common/error.h"
#include "config/loader.h"
#include "output.h"
#include "stdin_input.h"

namespace shardplan::app {

void add_input_options(CLI::App& sub, InputOptions& options) {
  auto* model =
      sub.add_option("--model", options.model, "model description (YAML or JSON; - for stdin)")->type_name("FILE");
  auto* topology = sub.add_option("--topology", options.topology, "topology (YAML or JSON)")->type_name("FILE");
  auto* planner = sub.add_option("--planner", options.planner, "planner options (default: the model's planner: key)")
                      ->type_name("FILE");
  auto* config =
      sub.add_option("--config", options.config, "one-file case with model, topology and planner keys (- for stdin)")
          ->type_name("CASE");
  config->excludes(model)->excludes(topology)->excludes(planner);
}

namespace {

PlanningInput load_named(const InputOptions& options) {
  if (!options.config.empty()) return load_case(options.config);
  if (options.model.empty() && options.topology.empty())
    throw InputError(SourcePos{}, "", "no input: give --model FILE --topology FILE [--planner FILE], or --config CASE");
  if (options.model.empty()) throw InputError(SourcePos{}, "", "--topology needs --model FILE as well");
  if (options.topology.empty()) throw InputError(SourcePos{}, "", "--model needs --topology FILE as well");
  std::optional<std::string> planner;
  if (!options.planner.empty()) planner = options.planner;
  return load_inputs(options.model, options.topology, planner);
}

}  // namespace

PlanningInput load_input_options(const InputOptions& options) {
  std::vector<std::string*> from_stdin;
  InputOptions named = options;
  for (std::string* path : {&named.model, &named.topology, &named.planner, &named.config})
    if (*path == "-") from_stdin.push_back(path);
  if (from_stdin.empty()) return load_named(named);
  if (from_stdin.size() > 1) check_one_stdin_input({named.model, named.topology, named.planner, named.config});
  // The loaders read "-" from stdin themselves, into memory (document/input_text.h).
  return load_named(named);
}

}  // namespace shardplan::app
