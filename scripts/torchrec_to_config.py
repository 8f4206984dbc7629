#!/usr/bin/env python3
"""The way in from torchrec: turn a model's embedding modules, its ParameterConstraints
and its Topology, as torchrec holds them in Python, into a shardplan config (one-file
case: model, topology, planner), and plan it with shardplan into a torchrec ShardingPlan.

    from torchrec_to_config import case_config, write_case, shardplan_plan
    case = case_config({"sparse.ebc": ebc}, topology, constraints, batch_size=512)
    write_case("case.json", case)            # then: shardplan plan --config case.json
    plan = shardplan_plan(case)              # a torchrec ShardingPlan (needs torchrec)

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
import subprocess
import sys
import tempfile


def _name(value):
    """A torchrec enum (or a string) as shardplan's lower-case name."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value.lower()
    inner = getattr(value, "value", None)
    if isinstance(inner, str):  # ShardingType, EmbeddingComputeKernel, DataType
        return inner.lower()
    return value.name.lower()  # CacheAlgorithm, BoundsCheckMode: int-valued enums


def _module_tables(module, kind):
    """(kind, table configs) of an EBC, an EC, or a list of configs."""
    if hasattr(module, "embedding_bag_configs"):
        return "embedding_bag", list(module.embedding_bag_configs())
    if hasattr(module, "embedding_configs"):
        return "embedding", list(module.embedding_configs())
    return kind, list(module)


def _table(config):
    table = {"name": config.name, "num_embeddings": int(config.num_embeddings),
             "embedding_dim": int(config.embedding_dim)}
    data_type = getattr(config, "data_type", None)
    if data_type is not None:
        table["data_type"] = _name(data_type)
    features = list(getattr(config, "feature_names", None) or [])
    if features:
        table["feature_names"] = features
    return table


_CONSTRAINT_FIELDS = ["sharding_types", "compute_kernels", "min_partition", "pooling_factors", "num_poolings",
                      "batch_sizes", "is_weighted", "enforce_hbm", "stochastic_rounding", "bounds_check_mode",
                      "output_dtype", "device_group"]
_CACHE_FIELDS = ["algorithm", "load_factor", "reserved_memory", "precision", "prefetch_pipeline"]


def _constraint(constraint):
    out = {}
    for field in _CONSTRAINT_FIELDS:
        value = getattr(constraint, field, None)
        if value is None:
            continue
        if field in ("sharding_types", "compute_kernels"):
            value = [_name(v) for v in value]
        elif field in ("pooling_factors", "num_poolings"):
            value = [float(v) for v in value]
        elif field == "batch_sizes":
            value = [int(v) for v in value]
        elif field in ("bounds_check_mode", "output_dtype", "device_group"):
            value = _name(value)
        out[field] = value
    cache = getattr(constraint, "cache_params", None)
    if cache is not None:
        params = {}
        for field in _CACHE_FIELDS:
            value = getattr(cache, field, None)
            if value is not None:
                params[field] = _name(value) if field in ("algorithm", "precision") else value
        out["cache_params"] = params
    return out


def model_config(modules, constraints=None, batch_size=512, name=None, dense_parameters=0,
                 kind="embedding_bag"):
    """shardplan's model section: `modules` maps a module path to an EBC/EC or a list of
    table configs (`kind` says which for a list); `constraints` maps a table name to
    torchrec's ParameterConstraints."""
    model = {"batch_size": int(batch_size), "modules": []}
    if name:
        model["name"] = name
    for path, module in modules.items():
        module_kind, configs = _module_tables(module, kind)
        model["modules"].append({"path": path, "kind": module_kind, "tables": [_table(c) for c in configs]})
    if dense_parameters:
        model["dense"] = {"parameters": int(dense_parameters)}
    if constraints:
        model["constraints"] = {table: _constraint(c) for table, c in constraints.items()}
    return model


_BANDWIDTHS = ["hbm_mem_bw", "ddr_mem_bw", "hbm_to_ddr_mem_bw", "intra_host_bw", "inter_host_bw",
               "bwd_compute_multiplier", "weighted_feature_bwd_compute_multiplier",
               "uneven_sharding_perf_multiplier"]


def topology_config(topology):
    """shardplan's topology section from torchrec's Topology (capacities in bytes,
    bandwidths in bytes/ms as torchrec holds them)."""
    out = {"world_size": int(topology.world_size),
           "local_world_size": int(topology.local_world_size),
           "compute_device": _name(topology.compute_device)}
    devices = list(getattr(topology, "devices", None) or [])
    if devices:
        hbm = [int(d.storage.hbm) for d in devices]
        ddr = [int(d.storage.ddr) for d in devices]
        out["hbm_cap"], out["ddr_cap"] = hbm[0], ddr[0]
        if len(set(hbm)) > 1 or len(set(ddr)) > 1:
            out["custom"] = {"hbm_cap": hbm, "ddr_cap": ddr}
    for field in _BANDWIDTHS:
        value = getattr(topology, field, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[field] = value
    return out


def case_config(modules, topology, constraints=None, planner=None, **model_options):
    """One-file case: {"model", "topology", "planner"}."""
    return {"model": model_config(modules, constraints, **model_options),
            "topology": topology_config(topology),
            "planner": dict(planner or {})}


def write_case(path, case):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(case, f, indent=2)
        f.write("\n")


def shardplan_plan(case, shardplan="shardplan", flags=()):
    """Runs `shardplan plan` on `case` and returns the torchrec ShardingPlan
    (scripts/plan_to_torchrec.py; needs torchrec). Raises CalledProcessError with
    shardplan's message when no plan fits or the input is bad."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from plan_to_torchrec import load_sharding_plan
    with tempfile.TemporaryDirectory() as folder:
        case_path = os.path.join(folder, "case.json")
        plan_path = os.path.join(folder, "plan.json")
        write_case(case_path, case)
        subprocess.run([shardplan, "plan", "--config", case_path, "--stats", "none", "-o", plan_path, *flags],
                       check=True, stderr=subprocess.PIPE, text=True)
        return load_sharding_plan(plan_path)


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
