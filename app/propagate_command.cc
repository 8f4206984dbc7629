// `shardplan propagate --input FILE [...]`: Shardy-style sharding propagation on a
// small tensor program (docs/formats/propagate.md). Options -> lib/propagation.
#include <iostream>
#include <memory>

#include "commands.h"
#include "common/atomic_write.h"
#include "common/error.h"
#include "common/phase_times.h"
#include "output.h"
#include "propagation/driver.h"
#include "propagation/program_reader.h"
#include "propagation/propagate.h"

namespace shardplan::app {

namespace {

struct PropagateArgs {
  std::string input;
  propagation::OptionOverrides overrides;
  std::string strategy, factor_propagation, format, dump_directory, output;
  bool conservative = false, keep_rules = false, no_op_priority = false, timings = false;
};

int run(CLI::App& sub, PropagateArgs& args) {
  auto& o = args.overrides;
  // Only flags given on the command line override the input's "options".
  if (sub.count("--strategy")) o.strategy = args.strategy;
  if (sub.count("--factor-propagation")) o.factor_propagation = args.factor_propagation;
  if (sub.count("--format")) o.format = args.format;
  if (sub.count("--module-dump-directory")) o.module_dump_directory = args.dump_directory;
  if (sub.count("--output")) o.output = args.output;
  if (args.conservative) o.conservative_propagation = true;
  if (args.keep_rules) o.keep_sharding_rules = true;
  if (args.no_op_priority) o.no_op_priority_propagation = true;
  PhaseTimes times;
  propagation::Program program = propagation::read_program(args.input, o);
  times.mark("read");
  std::string rendered;
  try {
    rendered = propagation::propagate_and_render(program, &times);
  } catch (const propagation::PropagationDidNotConverge& e) {
    remove_stale_output(program.options.output, {args.input});
    std::cerr << "error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kNoFeasiblePlan);
  }
  if (program.options.output.empty() || program.options.output == "-") {
    std::cout << rendered;
    std::cout.flush();
  } else {
    write_output(program.options.output, rendered);
  }
  times.mark("write");
  if (args.timings) {
    std::cerr << "timings:";
    for (const auto& [phase, seconds] : times.phases()) std::cerr << " " << phase << " " << seconds << " s";
    std::cerr << "\n";
  }
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_propagate(CLI::App& sub) {
  auto args = std::make_shared<PropagateArgs>();
  sub.add_option("--input,-i", args->input,
                 "the program: a StableHLO/sdy MLIR module (.mlir, as JAX prints it), or JSON/YAML")
      ->required()
      ->type_name("FILE");
  sub.add_option("--strategy", args->strategy,
                 "basic | aggressive | op-priority | user-priority (default: user-priority)")
      ->type_name("NAME");
  sub.add_flag("--conservative-propagation", args->conservative,
               "never split an axis into sub-axes, and never shard a concatenated dim");
  sub.add_flag("--keep-sharding-rules", args->keep_rules, "print each op's sharding rule in the result");
  sub.add_option("--module-dump-directory", args->dump_directory,
                 "write the program before propagation and after each iteration into DIR")
      ->type_name("DIR");
  sub.add_option("--factor-propagation", args->factor_propagation,
                 "aggressive | basic | basic_then_aggressive (default: aggressive; basic strategy ignores it)")
      ->type_name("NAME");
  sub.add_flag("--no-op-priority-propagation", args->no_op_priority,
               "op-priority (and user-priority's rounds) run plain aggressive propagation");
  sub.add_option("--output,-o", args->output, "write the result here (atomically) instead of stdout")
      ->type_name("FILE");
  sub.add_flag("--timings", args->timings,
               "print the wall time of each phase (read, propagate, render, write) to stderr");
  sub.add_option("--format", args->format,
                 "json (default) | text: each tensor, its sharding, what set it, collectives | mlir: the MLIR input "
                 "with its shardings")
      ->type_name("FORMAT");
  sub.footer(
      "Example (a 2-layer MLP on a data x model mesh, see docs/commands/propagate.md):\n"
      "  shardplan propagate --input configs/propagate/mlp-2layer.json --format text\n"
      "  shardplan propagate --input configs/propagate/mlp-2layer.mlir --format mlir\n"
      "  shardplan propagate -i program.yaml --strategy aggressive --keep-sharding-rules -o result.json\n"
      "Options may also be given in the input under \"options\" (flag names with '_'); the command line wins.\n"
      "Exit code 0 on success, 1 if propagation does not converge, 2 for bad input or usage.");
  CLI::App* app = &sub;
  return [app, args] {
    // Only an -o given on the command line is known before the input is read.
    const std::string output = app->count("--output") ? args->output : "";
    return run_removing_stale_output(output, {args->input}, [&] { return run(*app, *args); });
  };
}

}  // namespace shardplan::app
