#include "commands.h"

namespace shardplan::app {

const std::vector<Command>& commands() {
  static const std::vector<Command> table{
      {"validate", "check input files and report every problem in them",
       "shardplan validate configs/dlrm-criteo-terabyte.yaml configs/topology-1x8-80g.yaml", setup_validate},
  };
  return table;
}

}  // namespace shardplan::app
