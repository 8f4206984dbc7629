#!/usr/bin/env python3
"""Seeded random one-file cases (model, topology, planner) for shardplan.

Every key of docs/formats/model.md (and topology.md, planner.md) appears in some of the generated
cases: both module kinds, every data type, multi-feature tables, every
constraint field (empty lists, min_partition 0, num_poolings 0.0 and
device_group included), cpu/cuda/mtia topologies of 1 to 256 ranks with any
local_world_size (dividing, not dividing, larger than world_size, 0), custom
per-rank capacities, sizes and bandwidths as numbers or strings with units,
every proposer, partitioner and storage reservation (also under the model's
`planner:` key), tight memory, exact ties (copied tables) and tables of up to
10^9 rows. The cases are valid inputs: the planner may find no plan for them
(exit 1), but they should not be refused.

The same seed gives the same files, byte for byte (Python 3 standard library
only). Case i depends only on (seed, i), so a failing case can be regenerated
alone with --first i --count 1.

    scripts/random_models.py --seed 17 --count 300 --out /tmp/models
"""

import argparse
import json
import os
import random

SHARDING_TYPES = ["data_parallel", "table_wise", "column_wise", "row_wise",
                  "table_row_wise", "table_column_wise", "grid_shard"]
COMPUTE_KERNELS = ["dense", "fused", "fused_uvm", "fused_uvm_caching", "key_value",
                   "quant", "quant_uvm", "quant_uvm_caching"]
DATA_TYPES = ["fp32", "fp16", "bf16", "int8", "int4", "int2"]
DEVICES = ["cuda", "cpu", "mtia"]
PROPOSERS = ["grid_search", "greedy", "greedy_sum", "uniform", "offload_scaleup"]
BOUNDS_CHECK_MODES = ["none", "warning", "fatal", "ignore"]
WORLD_SIZES = [1, 2, 2, 3, 4, 4, 6, 8, 8, 8, 12, 16, 16, 32, 64, 128, 256]
DIMS = [4, 8, 12, 16, 32, 48, 64, 96, 128, 160, 256, 384, 512, 1000]


def size_text(rng, num_bytes):
    """num_bytes as an integer or as a string with a unit (same value or close)."""
    style = rng.random()
    if style < 0.5:
        return int(num_bytes)
    for unit, scale in (("TiB", 1024 ** 4), ("GiB", 1024 ** 3), ("GB", 1024 ** 3),
                        ("MiB", 1024 ** 2), ("MB", 1024 ** 2), ("KiB", 1024)):
        if num_bytes >= scale:
            value = max(1, round(num_bytes / scale))
            space = " " if rng.random() < 0.5 else ""
            return f"{value}{space}{unit}"
    return int(num_bytes)


def bandwidth(rng, default_gbps):
    gbps = default_gbps * rng.choice([0.25, 0.5, 1, 1, 2, 4])
    if rng.random() < 0.5:
        return f"{gbps:g} GB/s"
    return round(gbps * 1024 ** 3 / 1000, 3)


def log_uniform_int(rng, low_exponent, high_exponent):
    return int(round(10 ** rng.uniform(low_exponent, high_exponent)))


def maybe(rng, probability):
    return rng.random() < probability


def table_rows(rng):
    roll = rng.random()
    if roll < 0.03:
        return 10 ** 9
    if roll < 0.08:
        return rng.randint(1, 8)  # fewer rows than ranks: empty row-wise shards
    return max(1, log_uniform_int(rng, 1, 8))


def make_tables(rng, module_index, kind, count, state):
    tables = []
    shared_dim = rng.choice(DIMS)
    for t in range(count):
        name = f"t{module_index}_{t}"
        if state["previous"] is not None and maybe(rng, 0.25):
            rows, dim, dtype = state["previous"]  # an exact tie with the table before
        else:
            rows, dim, dtype = table_rows(rng), rng.choice(DIMS), rng.choice(DATA_TYPES)
        if kind == "embedding":
            dim = shared_dim  # EmbeddingCollection: one embedding_dim for all its tables
        state["previous"] = (rows, dim, dtype)
        table = {"name": name, "num_embeddings": rows, "embedding_dim": dim}
        if maybe(rng, 0.6):
            table["data_type"] = dtype
        roll = rng.random()
        if roll < 0.3:
            table["feature_names"] = [f"{name}_f{k}" for k in range(rng.randint(2, 4))]
        elif roll < 0.4:
            table["feature_names"] = [f"{name}_f0"]
        elif roll < 0.45:
            table["feature_names"] = []  # torchrec: not given
        tables.append(table)
    return tables


def make_cache_params(rng):
    cache = {}
    if maybe(rng, 0.8):
        cache["load_factor"] = rng.choice([0.01, 0.05, 0.1, 0.2, 0.5, 1.0])
    if maybe(rng, 0.4):
        cache["algorithm"] = rng.choice(["lru", "lfu"])
    if maybe(rng, 0.3):
        cache["reserved_memory"] = rng.choice([0.0, 0.5, 2.0])
    if maybe(rng, 0.3):
        cache["precision"] = rng.choice(DATA_TYPES)
    if maybe(rng, 0.3):
        cache["prefetch_pipeline"] = maybe(rng, 0.5)
    return cache


def make_constraint(rng, table, num_tables):
    c = {}
    features = len(table.get("feature_names") or [table["name"]])
    if maybe(rng, 0.5):
        k = rng.choice([0, 1, 1, 2, 3])
        types = rng.sample(SHARDING_TYPES, k)
        # grid_shard multiplies shards: keep it to small models.
        if num_tables > 3:
            types = [t for t in types if t != "grid_shard"]
        c["sharding_types"] = types
    if maybe(rng, 0.25):
        # Mostly training kernels; the quant ones leave a training model no option.
        kernels = COMPUTE_KERNELS if maybe(rng, 0.2) else COMPUTE_KERNELS[:5]
        c["compute_kernels"] = rng.sample(kernels, rng.choice([0, 1, 2, 3]))
    if maybe(rng, 0.2):
        c["min_partition"] = rng.choice([0, 4, 16, 32, 64, 100, 128])
    given_pooling = maybe(rng, 0.5)
    if given_pooling:
        c["pooling_factors"] = [rng.choice([0.0, 0.5, 1.0, 2.0, 7.5, 20.0, 100.0]) for _ in range(features)]
    inputs = features if given_pooling else 1  # torchrec's default [1.0] is one input
    if maybe(rng, 0.25):
        count = 0 if maybe(rng, 0.1) else inputs  # [] is torchrec's "not given"
        c["num_poolings"] = [rng.choice([0.0, 1.0, 1.0, 2.0, 3.5]) for _ in range(count)]
    if maybe(rng, 0.2):
        count = 0 if maybe(rng, 0.1) else inputs
        c["batch_sizes"] = [rng.choice([1, 64, 512, 2048]) for _ in range(count)]
    if maybe(rng, 0.2):
        c["is_weighted"] = maybe(rng, 0.5)
    if maybe(rng, 0.25):
        c["cache_params"] = make_cache_params(rng)
    if maybe(rng, 0.15):
        c["enforce_hbm"] = maybe(rng, 0.5)
    if maybe(rng, 0.15):
        c["stochastic_rounding"] = maybe(rng, 0.5)
    if maybe(rng, 0.15):
        c["bounds_check_mode"] = rng.choice(BOUNDS_CHECK_MODES)
    if maybe(rng, 0.15):
        c["output_dtype"] = rng.choice(["fp32", "fp16", "bf16"])
    if maybe(rng, 0.12):
        c["device_group"] = rng.choice(DEVICES)
    return c


def make_model(rng, index, num_tables, constraint_share=0.6):
    model = {"name": f"random-{index}"}
    if maybe(rng, 0.5):
        model["batch_size"] = rng.choice([0, 1, 8, 128, 512, 512, 2048, 8192])
    modules = []
    remaining = num_tables
    state = {"previous": None}
    m = 0
    while remaining > 0:
        count = rng.randint(1, remaining)
        kind = "embedding" if maybe(rng, 0.3) else "embedding_bag"
        module = {"path": f"sparse.m{m}", "tables": make_tables(rng, m, kind, count, state)}
        if kind == "embedding" or maybe(rng, 0.5):
            module["kind"] = kind
        modules.append(module)
        remaining -= count
        m += 1
    model["modules"] = modules
    if maybe(rng, 0.5):
        dense = {"parameters": rng.choice([0, 1000, 2 * 10 ** 6, 5 * 10 ** 7, 10 ** 9])}
        if maybe(rng, 0.3):
            dense["data_type"] = rng.choice(["fp32", "fp16", "bf16"])
        model["dense"] = dense
    constraints = {}
    for module in modules:
        for table in module["tables"]:
            if maybe(rng, constraint_share):
                constraints[table["name"]] = make_constraint(rng, table, num_tables)
    if constraints or maybe(rng, 0.5):
        model["constraints"] = constraints
    return model


def make_topology(rng, world_sizes=None):
    world = rng.choice(world_sizes or WORLD_SIZES)
    topology = {"world_size": world}
    roll = rng.random()
    if roll < 0.3:
        pass  # default: one host
    elif roll < 0.6:
        topology["local_world_size"] = rng.choice([d for d in range(1, world + 1) if world % d == 0])
    elif roll < 0.7:
        topology["local_world_size"] = 0  # torchrec: world_size
    elif roll < 0.85:
        topology["local_world_size"] = rng.randint(1, world + 2)  # may not divide world_size
    else:
        topology["local_world_size"] = world * rng.choice([2, 3]) + rng.randint(0, 1)  # beyond world_size
    device = rng.choices(DEVICES, weights=[7, 2, 1])[0]
    if device != "cuda" or maybe(rng, 0.5):
        topology["compute_device"] = device
    tight = maybe(rng, 0.3)
    if maybe(rng, 0.6):
        gib = rng.choice([0.05, 0.5, 1, 2]) if tight else rng.choice([8, 16, 32, 40, 80])
        topology["hbm_cap"] = size_text(rng, int(gib * 1024 ** 3))
    if maybe(rng, 0.4):
        gib = rng.choice([0.1, 1, 4]) if tight else rng.choice([64, 128, 512])
        topology["ddr_cap"] = size_text(rng, int(gib * 1024 ** 3))
    for key, gbps in (("hbm_mem_bw", 897), ("ddr_mem_bw", 51), ("hbm_to_ddr_mem_bw", 32),
                      ("intra_host_bw", 600), ("inter_host_bw", 12.5)):
        if maybe(rng, 0.15):
            topology[key] = bandwidth(rng, gbps)
    for key in ("bwd_compute_multiplier", "weighted_feature_bwd_compute_multiplier",
                "uneven_sharding_perf_multiplier"):
        if maybe(rng, 0.15):
            topology[key] = rng.choice([0.5, 1.0, 1.5, 2.0, 3.0])
    if maybe(rng, 0.15):
        custom = {}
        if maybe(rng, 0.8):
            custom["hbm_cap"] = [size_text(rng, rng.choice([1, 2, 8, 16, 32]) * 1024 ** 3) for _ in range(world)]
        if maybe(rng, 0.5):
            custom["ddr_cap"] = [size_text(rng, rng.choice([16, 64, 128]) * 1024 ** 3) for _ in range(world)]
        topology["custom"] = custom
    return topology


def make_planner(rng, num_tables):
    planner = {}
    roll = rng.random()
    if roll < 0.35:
        pass  # torchrec's default set
    elif roll < 0.4:
        planner["proposers"] = []  # torchrec: not given
    else:
        choices = PROPOSERS if num_tables <= 3 else [p for p in PROPOSERS if p != "grid_search"]
        planner["proposers"] = rng.sample(choices, rng.randint(1, min(3, len(choices))))
    if maybe(rng, 0.5):
        partitioner = {}
        if maybe(rng, 0.8):
            partitioner["type"] = rng.choice(["greedy", "memory_balanced"])
        if maybe(rng, 0.4):
            partitioner["sort_by"] = rng.choice(["storage", "perf"])
        if maybe(rng, 0.3):
            partitioner["balance_modules"] = maybe(rng, 0.5)
        if maybe(rng, 0.3):
            partitioner["max_search_count"] = rng.randint(1, 20)
        if maybe(rng, 0.3):
            partitioner["tolerance"] = rng.choice([0.0, 0.02, 0.1, 0.5])
        planner["partitioner"] = partitioner
    if maybe(rng, 0.6):
        reservation = {}
        if maybe(rng, 0.8):
            reservation["policy"] = rng.choice(["heuristical", "fixed_percentage", "inference"])
        if maybe(rng, 0.6):
            reservation["percentage"] = rng.choice([0.0, 0.05, 0.15, 0.3, 0.6, 1.0])
        if maybe(rng, 0.3):
            reservation["parameter_multiplier"] = rng.choice([0.0, 1.0, 4.0, 6.0, 10.0])
        if maybe(rng, 0.3):
            reservation["dense_tensor_estimate"] = rng.choice([None, 0, 10 ** 6, "1 GiB", "3GB"])
        planner["storage_reservation"] = reservation
    if maybe(rng, 0.2):
        planner["is_inference"] = maybe(rng, 0.5)
    return planner


def make_case(seed, index, tables=None, world_sizes=None, constraint_share=0.6):
    """Case `index` of the sequence of `seed`, and whether to write it as YAML. `tables`
    (low, high) and `world_sizes` replace the default draws of the table count and world
    size (bigger cases, e.g. for scripts/mip_oracle), `constraint_share` the share of tables
    with constraints; with the defaults the cases are as before."""
    rng = random.Random(seed * 1_000_003 + index)
    num_tables = rng.choices([1, 2, 3, 4, 5, 6], weights=[3, 4, 4, 3, 2, 1])[0]
    if tables:
        num_tables = random.Random(f"tables-{seed}-{index}").randint(*tables)
    case = {"model": make_model(rng, index, num_tables, constraint_share), "topology": make_topology(rng, world_sizes),
            "planner": make_planner(rng, num_tables)}
    # EmbeddingOffloadScaleupProposer asserts cache_params on caching options:
    # mostly give them, so that the proposer gets to propose.
    if "offload_scaleup" in case["planner"].get("proposers", []) and maybe(rng, 0.8):
        constraints = case["model"].setdefault("constraints", {})
        for module in case["model"]["modules"]:
            for table in module["tables"]:
                constraint = constraints.setdefault(table["name"], {})
                constraint.setdefault("cache_params", {"load_factor": rng.choice([0.05, 0.2, 0.5])})
    # The planner options may also sit under the model's own `planner:` key.
    if maybe(rng, 0.1):
        case["model"]["planner"] = case.pop("planner")
    # JSON is YAML: a ".yaml" name sends the same text through the YAML reader.
    return case, maybe(rng, 0.3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--out", required=True, help="directory for case-NNNNN.json / .yaml")
    parser.add_argument("--tables", help="LOW-HIGH: tables per case (default: 1 to 6)")
    parser.add_argument("--world-sizes", help="comma-separated world sizes to draw from (default: 1 to 256)")
    parser.add_argument("--constraint-share", type=float, default=0.6,
                        help="share of tables with constraints (default 0.6; lower it for many tables, "
                             "whose random constraints otherwise often leave a table no option)")
    args = parser.parse_args()
    tables = tuple(int(v) for v in args.tables.split("-")) if args.tables else None
    worlds = [int(v) for v in args.world_sizes.split(",")] if args.world_sizes else None
    os.makedirs(args.out, exist_ok=True)
    for index in range(args.first, args.first + args.count):
        case, as_yaml = make_case(args.seed, index, tables, worlds, args.constraint_share)
        path = os.path.join(args.out, f"case-{index:05d}.{'yaml' if as_yaml else 'json'}")
        with open(path, "w", encoding="utf-8") as out:
            json.dump(case, out, indent=1, sort_keys=False)
            out.write("\n")


if __name__ == "__main__":
    main()
