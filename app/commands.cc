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
      {"help", "describe shardplan or one command (the same text as --help)", "shardplan help plan", setup_help},
      {"completion", "print a bash or zsh completion script for shardplan",
       "source <(shardplan completion bash)", setup_completion},
  };
  return table;
}

}  // namespace shardplan::app
