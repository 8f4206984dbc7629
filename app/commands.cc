#include "commands.h"

namespace shardplan::app {

const std::vector<Command>& commands() {
  static const std::vector<Command> table{
      {"plan", "plan the sharding of a model: EmbeddingStats to stderr, the plan as JSON",
       "shardplan plan --config configs/quickstart.json -o plan.json", setup_plan},
      {"enumerate", "list every sharding option with its storage and perf estimates",
       "shardplan enumerate --config configs/quickstart.json --format text", setup_enumerate},
      {"validate", "check input files and report every problem in them",
       "shardplan validate configs/dlrm-criteo-terabyte.yaml configs/topology-1x8-80g.yaml", setup_validate},
      {"sweep", "plan one model over a grid of topologies and planner options, one row per point",
       "shardplan sweep --config configs/quickstart.json --set world_size=2,4,8 --set hbm_cap=\"8 GiB,16 GiB\"",
       setup_sweep},
      {"a2a", "simulate torchrec's KJTAllToAll: what every rank receives and what each collective moves",
       "shardplan a2a --input configs/a2a/kjt.json -o received.json", setup_a2a},
      {"pipeline", "plan pipeline-parallel stages, micro-batches and schedule (torch Pipe, 1F1B, interleaved)",
       "shardplan pipeline --input configs/pipeline/transformer.yaml", setup_pipeline},
      {"propagate", "propagate tensor shardings through a program, as OpenXLA Shardy does",
       "shardplan propagate --input configs/propagate/mlp-2layer.json --format text", setup_propagate},
      {"help", "describe shardplan or one command (the same text as --help)", "shardplan help plan", setup_help},
      {"completion", "print a bash or zsh completion script for shardplan",
       "source <(shardplan completion bash)", setup_completion},
  };
  return table;
}

}  // namespace shardplan::app
