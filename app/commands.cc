#include "commands.h"

namespace shardplan::app {

const std::vector<Command>& commands() {
  static const std::vector<Command> table{
      {"plan", "plan the sharding of a model: a summary to stderr, the plan as JSON",
       "shardplan plan --config configs/quickstart.json -o plan.json", setup_plan},
      {"enumerate", "list every sharding option with its storage and perf estimates",
       "shardplan enumerate --config configs/quickstart.json --format text", setup_enumerate},
      {"validate", "check input files and report every problem in them",
       "shardplan validate configs/dlrm-criteo-terabyte.yaml configs/topology-1x8-80g.yaml", setup_validate},
      {"explain", "why a table got its sharding option, and why each other option lost",
       "shardplan explain --config configs/quickstart.json --table sparse.ebc.t_query", setup_explain},
      {"sweep", "plan one model over a grid of topologies and planner options, one row per point",
       "shardplan sweep --config configs/quickstart.json --set world_size=2,4,8 --set hbm_cap=\"8 GiB,16 GiB\"",
       setup_sweep},
      {"a2a", "simulate torchrec's KJTAllToAll: what every rank receives and what each collective moves",
       "shardplan a2a --input configs/a2a/kjt.json -o received.json", setup_a2a},
      {"pipeline", "plan pipeline-parallel stages, micro-batches and schedule (torch Pipe, 1F1B, interleaved)",
       "shardplan pipeline --input configs/pipeline/transformer.yaml", setup_pipeline},
      {"propagate", "propagate tensor shardings through a program, as OpenXLA Shardy does",
       "shardplan propagate --input configs/propagate/mlp-2layer.json --format text", setup_propagate},
      {"show", "print a plan file as a table of what went where and per-rank bars (100 columns)",
       "shardplan show plan.json", setup_show},
      {"diff", "compare two plans: per-table and per-rank changes; exit 1 on a regression (for CI)",
       "shardplan diff main-plan.json plan.json --tolerance 0.01 --fail-on sharding-type-change", setup_diff},
      {"help", "describe shardplan or one command (the same text as --help)", "shardplan help plan", setup_help},
      {"completion", "print a bash or zsh completion script for shardplan", "source <(shardplan completion bash)",
       setup_completion},
  };
  return table;
}

}  // namespace shardplan::app
