"""Shared by scripts/oracle_search and scripts/mip_oracle (not a command): load a case's
enumerated options, our optimizing plan and the reserved per-rank capacities, and check
a plan against the capacities and torchrec's partition rules, independently of the C++
code. Python standard library only.
"""
import json
import os
import subprocess


def load_case(binary, path, workdir, with_failures=False):
    """(options, plan) for the case at `path`: `shardplan enumerate --format json` and
    `shardplan plan --partitioner optimizing`'s plan file. None when the plan run fails,
    unless `with_failures`: then (options, None, stats) with the run's `--stats json`
    report (its `reservation` gives the capacities left per rank; see capacities_of)."""
    opts_path = os.path.join(workdir, "options.json")
    plan_path = os.path.join(workdir, "plan.json")
    subprocess.run([binary, "enumerate", "--config", path, "--format", "json", "-o", opts_path], check=True,
                   stdout=subprocess.DEVNULL)
    p = subprocess.run([binary, "plan", "--config", path, "--partitioner", "optimizing", "--stats",
                        "json" if with_failures else "none", "-o", plan_path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with open(opts_path) as f:
        options = json.load(f)["options"]
    if p.returncode != 0:
        if not with_failures:
            return None
        try:
            stats = json.loads(p.stderr)
        except ValueError:
            stats = None
        return options, None, stats
    with open(plan_path) as f:
        plan = json.load(f)
    return (options, plan, None) if with_failures else (options, plan)


def capacities_of(config_path, stats):
    """For a case whose plan run failed: (world, local, [(hbm, ddr)] per rank) from the
    `--stats json` reservation (usable HBM/DDR less the dense and KJT storage, the same on
    every rank), or None when the case gives per-rank capacities (`topology.custom`) or
    the report lacks them. The config must be JSON text (random_models.py writes JSON, also
    under a .yaml name)."""
    if not stats or "reservation" not in stats or "world_size" not in stats:
        return None
    try:
        with open(config_path) as f:
            config = json.load(f)
    except ValueError:
        return None
    topology = config.get("topology", {})
    if topology.get("custom"):
        return None
    res = stats["reservation"]
    if not res or "usable_hbm" not in res:
        return None
    zero = {"hbm": 0, "ddr": 0}  # fixed_percentage and inference reserve no dense/KJT storage
    res = dict(res, dense_storage=res.get("dense_storage") or zero, kjt_storage=res.get("kjt_storage") or zero)
    world = int(stats["world_size"])
    local = int(topology.get("local_world_size") or 0) or world
    hbm = res["usable_hbm"] - res["dense_storage"]["hbm"] - res["kjt_storage"]["hbm"]
    ddr = res["usable_ddr"] - res["dense_storage"]["ddr"] - res["kjt_storage"]["ddr"]
    return world, local, [(hbm, ddr)] * world


def shard_perf(shard):
    """A shard's perf total: the sum of its perf components (NoopPerfModel's rating)."""
    return sum(v for k, v in shard["perf"].items() if k != "total")


def option_key(sharding_type, compute_kernel, shards):
    return (sharding_type, compute_kernel, tuple(tuple(s["sizes"]) for s in shards))


class Rules:
    """The partition rules for one topology: `local` ranks per host (clamped to the world,
    as torchrec's partitioners do), `hosts` whole hosts."""

    def __init__(self, world, local):
        self.world = world
        self.local = max(1, min(local or world, world)) if world > 0 else 1
        self.hosts = world // self.local

    def usable(self, rule, trw, n):
        if rule == "uniform":
            return n == self.world
        if rule == "device":
            return self.world > 0
        if rule == "host":
            return self.hosts > 0 and (not trw or n == self.local)
        if rule == "multi_host":
            return self.hosts > 0 and n > 0 and n % self.local == 0
        return False

    def check(self, rule, trw, ranks):
        """None when `ranks` (shard j on ranks[j]) obeys the rule, else what is wrong."""
        n, L = len(ranks), self.local
        if any(not (0 <= r < self.world) for r in ranks):
            return "rank out of range"
        if rule == "uniform":
            return None if ranks == list(range(self.world)) else "uniform shard j not on rank j"
        if rule == "device":
            return None
        if rule == "host":
            h = ranks[0] // L
            if h >= self.hosts or any(r // L != h for r in ranks):
                return "host option's shards not on one whole host"
            if trw and any(r % L != j for j, r in enumerate(ranks)):
                return "table_row_wise shard j not on local device j"
            return None
        if rule == "multi_host":
            if n % L:
                return "grid_shard shard count not a multiple of the host size"
            nb = n // L
            hosts = []
            for b in range(nb):
                block = ranks[b * L:(b + 1) * L]
                h = block[0] // L
                if h >= self.hosts or any(r // L != h or r % L != j for j, r in enumerate(block)):
                    return "grid_shard block not on local devices 0..L-1 of one host"
                hosts.append(h)
            if nb <= self.hosts:
                # nb == hosts is both cases at once: a permutation
                return None if len(set(hosts)) == nb else "grid_shard blocks not on distinct hosts"
            first = hosts[:self.hosts]
            if sorted(first) != list(range(self.hosts)):
                return "grid_shard first blocks not on every host"
            if any(hosts[b] != first[b % self.hosts] for b in range(nb)):
                return "grid_shard blocks do not repeat the host order"
            return None
        return "unknown rule " + rule


def check_plan(rules, caps, placed):
    """Checks `placed`, a list of (rule, trw, perfs, storages, ranks) per table, against the
    partition rules and the per-rank capacities `caps` [(hbm, ddr)]. Returns
    (max-rank perf, None) or (None, what is wrong)."""
    load = [0.0] * rules.world
    hbm = [0] * rules.world
    ddr = [0] * rules.world
    for i, (rule, trw, perfs, stor, ranks) in enumerate(placed):
        if len(ranks) != len(perfs):
            return None, f"table {i}: {len(ranks)} ranks for {len(perfs)} shards"
        why = rules.check(rule, trw, list(ranks))
        if why:
            return None, f"table {i}: {why}"
        for j, r in enumerate(ranks):
            load[r] += perfs[j]
            hbm[r] += stor[j][0]
            ddr[r] += stor[j][1]
    for r in range(rules.world):
        if hbm[r] > caps[r][0] or ddr[r] > caps[r][1]:
            return None, f"rank {r} over capacity (HBM {hbm[r]} of {caps[r][0]}, DDR {ddr[r]} of {caps[r][1]})"
    return (max(load) if load else 0.0), None
