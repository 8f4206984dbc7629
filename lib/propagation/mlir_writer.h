// `--format mlir`: the module that was read (mlir_reader.h) written back with every
// propagated sharding in Shardy's printed form — op results as
// `sdy.sharding = #sdy.sharding_per_value<[<@mesh, [...]>]>`, function arguments and
// results as `sdy.sharding = #sdy.sharding<@mesh, [...]>` — everything else unchanged.
#pragma once

#include <string>

#include "propagation/driver.h"
#include "propagation/mlir_reader.h"

namespace shardplan::propagation {

// `<@mesh, [{"a", ?}, {}], replicated={"b"}>` (no priorities).
std::string sdy_sharding_text(const TensorSharding& sharding, const Mesh& mesh, const std::string& mesh_name);

// The module text with the driver's final shardings. The program must come from MLIR.
std::string render_mlir(const PropagationDriver& driver);

}  // namespace shardplan::propagation
