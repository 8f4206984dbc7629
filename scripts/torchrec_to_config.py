#!/usr/bin/env python3
"""The way in from torchrec: turn a model's embedding modules, its ParameterConstraints
and its Topology, as torchrec holds them in Python, into a shardplan config (one-file
case: model, topology, planner), and plan it with shardplan into a torchrec ShardingPlan.
A thin wrapper over the shardplan package (python/shardplan/torchrec.py); for planning
from a training script use shardplan.torchrec.ShardplanPlanner (docs/python.md).

    from torchrec_to_config import case_config, write_case, shardplan_plan
    case = case_config({"sparse.ebc": ebc}, topology, constraints, batch_size=512)
    write_case("case.json", case)            # then: shardplan plan --config case.json
    plan = shardplan_plan(case)              # a ShardingPlan (torchrec's classes if importable)

Modules are EmbeddingBagCollection / EmbeddingCollection objects or lists of their
configs (EmbeddingBagConfig / EmbeddingConfig); only their attributes are read (name,
num_embeddings, embedding_dim, data_type, feature_names), so torchrec need not be
importable to convert. Enums may be torchrec's or their shardplan names as strings.
Usage from the shell:  torchrec_to_config.py MODULE:FUNCTION OUT.json  where FUNCTION
returns (modules, topology, constraints) or a case dict.
"""
import importlib
import json
import os
import sys

try:
    import shardplan.torchrec  # noqa: F401  (installed beside the binary)
except ImportError:  # run from a checkout: the package's sources
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from shardplan.torchrec import case_config, model_config, topology_config  # noqa: E402,F401


def write_case(path, case):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(case, f, indent=2)
        f.write("\n")


def shardplan_plan(case, **options):
    """Plans `case` in-process (shardplan.plan) and returns the ShardingPlan. Raises
    shardplan.InputError (bad input) or shardplan.PlannerError (no feasible plan)."""
    import shardplan
    from shardplan.torchrec import sharding_plan_from_dict
    return sharding_plan_from_dict(shardplan.plan(case, **options))


def main(argv):
    if len(argv) != 3 or ":" not in argv[1]:
        print(__doc__.strip())
        return 0 if len(argv) == 2 and argv[1] in ("-h", "--help") else 2
    module_name, function = argv[1].split(":", 1)
    result = getattr(importlib.import_module(module_name), function)()
    case = result if isinstance(result, dict) else case_config(*result)
    write_case(argv[2], case)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
