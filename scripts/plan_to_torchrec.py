#!/usr/bin/env python3
"""Turn a shardplan plan file (schema shardplan.plan/v1) into a torchrec ShardingPlan.

Usage as a library:
    from plan_to_torchrec import load_sharding_plan
    plan = load_sharding_plan("plan.json")
    model = DistributedModelParallel(module, plan=plan, ...)

Usage from the shell (prints the plan torchrec would use):
    python3 scripts/plan_to_torchrec.py plan.json

Needs only the standard library and torchrec (imported when the plan is built).
Debian does not package torchrec; in a virtual environment: pip install torch torchrec
(https://pytorch.org/torchrec/).
"""

import json
import sys


def _enum_value(enum_cls, name):
    """torchrec enums are looked up by value, or by upper-case member name."""
    if name is None:
        return None
    for member in enum_cls:
        if member.value == name or member.name == name.upper():
            return member
    raise ValueError(f"unknown {enum_cls.__name__} value {name!r}")


def _cache_params(raw):
    if raw is None:
        return None
    from torchrec.distributed.types import CacheParams, CacheAlgorithm
    from torchrec.modules.embedding_configs import DataType

    return CacheParams(
        algorithm=_enum_value(CacheAlgorithm, raw.get("algorithm")),
        load_factor=raw.get("load_factor"),
        reserved_memory=raw.get("reserved_memory"),
        precision=_enum_value(DataType, raw.get("precision")),
        prefetch_pipeline=raw.get("prefetch_pipeline"),
    )


def load_sharding_plan(path):
    """Reads a plan file and returns a torchrec ShardingPlan."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "shardplan.plan/v1":
        raise ValueError(f"{path}: not a shardplan.plan/v1 file (schema={doc.get('schema')!r})")

    from torchrec.distributed.types import (
        BoundsCheckMode,
        EmbeddingModuleShardingPlan,
        EnumerableShardingSpec,
        ParameterSharding,
        ShardingPlan,
        ShardMetadata,
    )
    from torchrec.modules.embedding_configs import DataType

    plan = {}
    for module_path, tables in doc["plan"].items():
        module_plan = EmbeddingModuleShardingPlan()
        for table_name, table in tables.items():
            spec = None
            if table["sharding_type"] != "data_parallel":
                spec = EnumerableShardingSpec(
                    [
                        ShardMetadata(
                            shard_offsets=shard["offsets"],
                            shard_sizes=shard["sizes"],
                            placement=shard["placement"],
                        )
                        for shard in table["shards"]
                    ]
                )
            module_plan[table_name] = ParameterSharding(
                sharding_spec=spec,
                sharding_type=table["sharding_type"],
                compute_kernel=table["compute_kernel"],
                ranks=table["ranks"],
                cache_params=_cache_params(table.get("cache_params")),
                enforce_hbm=table.get("enforce_hbm"),
                stochastic_rounding=table.get("stochastic_rounding"),
                bounds_check_mode=_enum_value(BoundsCheckMode, table.get("bounds_check_mode")),
                output_dtype=_enum_value(DataType, table.get("output_dtype")),
            )
        plan[module_path] = module_plan
    return ShardingPlan(plan)


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    try:
        print(load_sharding_plan(argv[1]))
    except ModuleNotFoundError as e:
        if not (e.name or "").startswith(("torch", "fbgemm")):
            raise
        print(f"plan_to_torchrec: {e.name} is not installed; torchrec is not packaged by Debian,\n"
              "in a virtual environment run:  pip install torch torchrec  "
              "(https://pytorch.org/torchrec/)", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
