// `shardplan enumerate`: every sharding option with torchrec's estimates.
#include <iostream>
#include <memory>

#include "commands.h"
#include "common/error.h"
#include "input_options.h"
#include "output.h"
#include "planner/enumerator.h"
#include "planner/run.h"
#include "planner/topology.h"
#include "planner_flags.h"
#include "planner_output/options_json.h"

namespace shardplan::app {

namespace {

struct EnumerateOptions {
  InputOptions inputs;
  PlannerOverrides overrides;
  std::string format = "json";
  std::string output;
};

int run(const EnumerateOptions& options) {
  const std::optional<OptionsFormat> format = parse_name(kOptionsFormatNames, options.format);
  if (!format)
    throw InputError(SourcePos{}, "--format",
                     "expected " + alternatives_text(kOptionsFormatNames) + ", found '" + options.format + "'");
  PlanningInput input = load_input_options(options.inputs);
  apply_planner_overrides(options.overrides, input);
  Topology topology = build_topology(input.topology);
  std::vector<ShardingOption> found;
  try {
    ThreadPool pool;  // one thread per core; the options do not depend on it
    found = enumerate_and_estimate(input, topology, Parallelism{&pool});
  } catch (const EnumerationError& e) {
    std::cerr << "error: no sharding option: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kNoFeasiblePlan);
  }
  // Written in pieces: the text of a large model is many times the options it shows.
  write_output_in_pieces(options.output, [&](const TextPieceSink& emit) {
    if (*format == OptionsFormat::kJson)
      write_options_json(found, emit);
    else
      write_options_text(found, emit);
  });
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_enumerate(CLI::App& sub) {
  auto options = std::make_shared<EnumerateOptions>();
  add_input_options(sub, options->inputs);
  add_planner_overrides(sub, options->overrides);
  // Enumeration reads the model and the topology only: the flags that steer proposing,
  // partitioning and the storage reservation would do nothing here, so they are not offered.
  for (const char* unused : {"--partitioner", "--proposers", "--storage-reservation", "--reservation-percentage",
                             "--sort-by", "--greedy-threshold", "--time-budget"})
    if (CLI::Option* option = sub.get_option_no_throw(unused)) sub.remove_option(option);
  sub.add_option("--format", options->format, "json (default) or text")->type_name("FORMAT");
  sub.add_option("-o,--output", options->output, "write here instead of stdout")->type_name("FILE");
  sub.footer(
      "Prints every sharding option torchrec's enumerator produces for every table (each allowed\n"
      "sharding type x compute kernel), with per-shard offsets and sizes, and the storage (bytes of\n"
      "HBM and DDR) and perf (ms: fwd_compute, fwd_comms, bwd_compute, bwd_comms, prefetch_compute)\n"
      "estimates. JSON output: one object {schema, num_options, options[...]} whose option fields\n"
      "are those of torchrec's goldens (schemas/enumerate.schema.json).\n\n"
      "Examples:\n"
      "  shardplan enumerate --config configs/quickstart.json --format text\n"
      "  shardplan enumerate --model configs/dlrm-criteo-terabyte.yaml --topology configs/topology-1x8-80g.yaml -o "
      "options.json\n");
  return [options] {
    // A failed run (bad input, or no option at all: exit 1 without output) leaves no earlier output.
    return run_removing_stale_output(options->output, input_paths(options->inputs), [&] {
      const int code = run(*options);
      if (code != static_cast<int>(ExitCode::kOk)) remove_stale_output(options->output, input_paths(options->inputs));
      return code;
    });
  };
}

}  // namespace shardplan::app
